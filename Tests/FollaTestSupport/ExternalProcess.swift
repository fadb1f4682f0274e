import FollaCore
import Foundation

/// Runs an external program (curl, python3, the folla binary) from a test and collects its
/// output. The blocking reads and the wait happen on threads of their own, never on a
/// task's thread nor on `DispatchQueue.global()` (on Linux, the same pool): there they
/// starved the in-process servers the programs were talking to (see `DedicatedThread`).
public enum ExternalProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var output: String
        public var errors: String
    }

    /// - Parameter seconds: after this long the program and everything it started are
    ///   terminated (coreutils `timeout` signals its whole process group, then kills it 5 s
    ///   later): a pipeline's grandchildren holding our pipes open would otherwise keep the
    ///   test waiting for good. A program that ran out of time exits with 124 (status 9 if
    ///   it had to be killed). `env --default-signal` first: the in-process servers'
    ///   signal handling leaves SIGTERM ignored in this process, and children inherit that,
    ///   so a terminated program (and its children) used to carry on.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           deadline seconds: Double = 120) async throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["--default-signal", "/usr/bin/timeout", "--kill-after=5", String(format: "%.1fs", seconds), executable] + arguments
        if let environment { p.environment = environment }
        let out = Pipe.closedOnExec(), err = Pipe.closedOnExec()
        p.standardOutput = out
        p.standardError = err
        let exited = try p.runWatchingExit()
        // Both pipes are drained at once, so that neither can fill and block the program.
        async let errors = DedicatedThread.run { err.fileHandleForReading.readDataToEndOfFile() }
        let output = await DedicatedThread.run { out.fileHandleForReading.readDataToEndOfFile() }
        let status = try await exited.value
        return Result(status: status, output: String(decoding: output, as: UTF8.self),
                      errors: String(decoding: await errors, as: UTF8.self))
    }
}
