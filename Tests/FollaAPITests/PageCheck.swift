import FollaTestSupport
import Foundation

/// One run of a headless-Chromium page check (`Tests/Browser/*_check.py`) against a live
/// server: the script runs while the server serves, asks for it to stop by writing
/// `stop-server` into its output folder (to check the page's offline state), is told
/// `server-stopped`, and leaves its checks in `result.json`.
final class PageCheck: @unchecked Sendable {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private var program: RunningProgram?
    /// Where the script writes its result, screenshots and Chromium's profile (emptied first).
    let out: URL

    /// - Parameter name: the output folder under `test-output/` (also the screenshots' home).
    init(name: String) throws {
        out = Self.root.appendingPathComponent("test-output/\(name)")
        try? FileManager.default.removeItem(at: out)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    }

    /// Starts `Tests/Browser/<script>` with Debian's python3 (it has no extra packages to
    /// need) and serves until the script asks for the server to go away.
    func run(script: String, arguments: [String]) async throws {
        // Under `timeout`, which runs the script in a process group of its own and ends the
        // whole group (Chromium with it) after 7 minutes, or at once when terminated: a test
        // cancelled at its time limit used to leave python and Chromium running.
        let program = try RunningProgram("/usr/bin/timeout", ["--kill-after=5", "420s", "/usr/bin/python3",
                                                            Self.root.appendingPathComponent("Tests/Browser/\(script)").path] + arguments)
        self.program = program
        // For as long as the script runs (the test's time limit bounds it): a busy CI box
        // can take minutes over it, and stopping the server early would fail every check left.
        let stop = out.appendingPathComponent("stop-server").path
        try await untilCancelled {
            while !FileManager.default.fileExists(atPath: stop) && program.isRunning {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// `body`, and the script's end if the test is cancelled meanwhile.
    private func untilCancelled(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            if let program { await program.stop(within: 10) }
            throw error
        }
    }

    /// Once the server is down: tells the script, waits for it, and reads its checks.
    func results() async throws -> [[String: Any]] {
        _ = FileManager.default.createFile(atPath: out.appendingPathComponent("server-stopped").path, contents: Data("ok".utf8))
        try await untilCancelled {
            for _ in 0..<600 where program?.isRunning == true { try await Task.sleep(for: .milliseconds(200)) }
        }
        if let program, program.isRunning { await program.stop(within: 10) }
        let result = try Data(contentsOf: out.appendingPathComponent("result.json"))
        return try JSONSerialization.jsonObject(with: result) as? [[String: Any]] ?? []
    }
}
