import Foundation
import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Runs an external program (curl, python3, schemathesis, the folla binary) from a test and
/// collects its output.
///
/// Through swift-subprocess, not Foundation's `Process`: under load, `Process.run()` trapped
/// the whole test process (a `try!` in swift-corelibs-foundation on a pipe's close that a
/// signal interrupted, EINTR; seen in `ci-local` while curl ran beside crashing
/// PostgreSQLs). swift-subprocess retries on EINTR, watches the child through a pidfd
/// rather than SIGCHLD, and reads the pipes with epoll on a thread of its own, never on the
/// task pool's two threads (see `DedicatedThread`).
public enum ExternalProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var output: String
        public var errors: String
    }

    /// What a program may print before the test fails instead (a schemathesis report of
    /// thousands of cases is a few hundred kB).
    static let outputLimit = 64 << 20

    /// - Parameters:
    ///   - environment: the whole environment of the program; nil inherits this process's.
    ///   - directory: the working directory; nil keeps this process's.
    ///   - seconds: after this long the program and everything it started are terminated
    ///     (coreutils `timeout` signals its whole process group, then kills it 5 s later): a
    ///     pipeline's grandchildren holding our pipes open would otherwise keep the test
    ///     waiting for good. A program that ran out of time exits with 124 (status 9 if it
    ///     had to be killed). `env --default-signal` first: the in-process servers' signal
    ///     handling leaves SIGTERM ignored in this process, and children inherit that, so a
    ///     terminated program (and its children) used to carry on.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           directory: String? = nil, deadline seconds: Double = 120) async throws -> Result {
        let wrapped = ["--default-signal", "/usr/bin/timeout", "--kill-after=5", String(format: "%.1fs", seconds),
                       executable] + arguments
        let result = try await Subprocess.run(
            .path("/usr/bin/env"), arguments: Arguments(wrapped),
            environment: Self.environment(environment),
            workingDirectory: directory.map { FilePath($0) },
            output: .string(limit: outputLimit), error: .string(limit: outputLimit))
        let status: Int32
        switch result.terminationStatus {
        case .exited(let code): status = code
        case .signaled(let signal): status = 128 + signal
        }
        return Result(status: status, output: result.standardOutput, errors: result.standardError)
    }

    /// `environment` as swift-subprocess takes it: the whole environment, or nil to inherit.
    static func environment(_ environment: [String: String]?) -> Environment {
        environment.map { .custom(Dictionary(uniqueKeysWithValues: $0.map { (Environment.Key(stringLiteral: $0.key), $0.value) })) }
            ?? .inherit
    }
}
