import FollaTestSupport
import Foundation

/// Runs an external program (curl, python3, the folla binary) from a test and collects its
/// output. The blocking reads and the wait happen on a Dispatch thread, never on Swift's
/// cooperative pool: on two cores, a test blocking a pool thread starves the in-process
/// server it is talking to.
enum ExternalProcess {
    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    /// - Parameter seconds: after this long the program is terminated (SIGTERM).
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                    deadline seconds: Double = 120) async throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if let environment { p.environment = environment }
        let out = Pipe.closedOnExec(), err = Pipe.closedOnExec()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let stop = DispatchWorkItem { if p.isRunning { p.terminate() } }
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: stop)
                // Both pipes are drained at once, so that neither can fill and block the program.
                let errors = Drained()
                let group = DispatchGroup()
                group.enter()
                DispatchQueue.global().async { errors.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
                let output = out.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                p.waitUntilExit()
                stop.cancel()
                continuation.resume(returning: Result(
                    status: p.terminationStatus, output: String(decoding: output, as: UTF8.self),
                    errors: String(decoding: errors.data, as: UTF8.self)))
            }
        }
    }
}

extension ExternalProcess {
    /// Runs blocking work (`EmbeddedPostgres.start()` waits for `initdb`, `pg_ctl`,
    /// `pg_basebackup`) on a Dispatch thread. On the cooperative pool, two such calls from
    /// two suites at once take both of this two-core box's threads, and every in-process
    /// server and timer of the test run stalls with them (seen in CI: browser tests out of
    /// time, clients timing out, in one run).
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let result = Swift.Result<T, any Error> { try body() }
                continuation.resume(with: result)
            }
        }
    }
}

/// Written by one Dispatch thread, read after `DispatchGroup.wait()` on another.
private final class Drained: @unchecked Sendable {
    var data = Data()
}
