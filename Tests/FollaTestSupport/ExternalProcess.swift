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

    /// - Parameter seconds: after this long the program is terminated (SIGTERM).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                    deadline seconds: Double = 120) async throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if let environment { p.environment = environment }
        let out = Pipe.closedOnExec(), err = Pipe.closedOnExec()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let deadline = Task {
            try await Task.sleep(for: .seconds(seconds))
            if p.isRunning { p.terminate() }
        }
        defer { deadline.cancel() }
        // Both pipes are drained at once, so that neither can fill and block the program.
        async let errors = DedicatedThread.run { err.fileHandleForReading.readDataToEndOfFile() }
        let output = await DedicatedThread.run { out.fileHandleForReading.readDataToEndOfFile() }
        let status = await DedicatedThread.run { p.waitUntilExit(); return p.terminationStatus }
        return Result(status: status, output: String(decoding: output, as: UTF8.self),
                      errors: String(decoding: await errors, as: UTF8.self))
    }
}
