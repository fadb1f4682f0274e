import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The wall page in a real headless Chromium against a live server (Tests/Browser/wall_check.py
/// drives it over the DevTools protocol). Screenshots land in test-output/wall/.
@Suite struct WallBrowserTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    final class Child: @unchecked Sendable {
        let process = Process()
    }

    @Test(.timeLimit(.minutes(3))) func wallPageInARealBrowser() async throws {
        let out = Self.root.appendingPathComponent("test-output/wall")
        try? FileManager.default.removeItem(at: out)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let child = Child()
        let device = dev(900)
        try await AppFixture.run(.live) { f in
            // 08:00 UTC + 6.5 h: messages at 14:30, which a 12-hour clock would show as 2:30 PM.
            f.clock.advance(by: 6.5 * 3600)
            try await f.makeVenue()
            // Two spots the page must place: 25 m north (the device joins it) and 40 m
            // north-east of the venue's centre, the second with ages and sexes (3 of 6 people).
            try await f.crowd(at(0, 25), people: 2, startingAt: 0)
            _ = try await f.checkIn(device, at(0, 22))
            try await f.crowd(at(45, 40), people: 3, startingAt: 20, age: 30)
            for (n, text) in [(0, "<script>window.__pwned = true</script>ciao"),
                              (1, "<img src=x onerror=\"window.__pwned = true\"> <b>grassetto</b>")] {
                let body = try JSONSerialization.data(withJSONObject: ["device_id": dev(n), "text": text])
                let r = try await f.client.execute(uri: "/v1/messages", method: .post, headers: [.contentType: "application/json"],
                                                   body: ByteBuffer(data: body))
                #expect(r.status == .created)
            }
            let port = try #require(f.client.port)
            child.process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            child.process.arguments = ["python3", Self.root.appendingPathComponent("Tests/Browser/wall_check.py").path,
                                       "http://127.0.0.1:\(port)", "piazza", device, out.path, adminToken,
                                       "\(centre.latitude),\(centre.longitude)",
                                       #"["25 m north of the centre", "40 m north-east of the centre"]"#]
            child.process.standardOutput = FileHandle.nullDevice
            child.process.standardError = FileHandle.nullDevice
            try child.process.run()
            // Serve until the driver asks for the server to go away.
            let stop = out.appendingPathComponent("stop-server").path
            for _ in 0..<600 where !FileManager.default.fileExists(atPath: stop) && child.process.isRunning {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        // The live server has shut down now.
        FileManager.default.createFile(atPath: out.appendingPathComponent("server-stopped").path, contents: Data("ok".utf8))
        for _ in 0..<300 where child.process.isRunning { try await Task.sleep(for: .milliseconds(200)) }
        if child.process.isRunning { child.process.terminate() }
        let result = try Data(contentsOf: out.appendingPathComponent("result.json"))
        let checks = try JSONSerialization.jsonObject(with: result) as? [[String: Any]] ?? []
        #expect(checks.count >= 18, "\(checks)")
        for c in checks {
            #expect(c["ok"] as? Bool == true, "\(c["check"] ?? "?"): \(c["detail"] ?? "")")
        }
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("wall-live.png").path))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("wall-offline.png").path))
    }
}
