import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The wall page in a real headless Chromium against a live server (Tests/Browser/wall_check.py
/// drives it over the DevTools protocol). Screenshots land in test-output/wall/.
@Suite struct WallBrowserTests {

    @Test(.timeLimit(.minutes(6))) func wallPageInARealBrowser() async throws {
        let child = try PageCheck(name: "wall")
        let out = child.out
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
            try await child.run(script: "wall_check.py", arguments: [
                "http://127.0.0.1:\(port)", "piazza", device, out.path, adminToken, "\(centre.latitude),\(centre.longitude)",
                #"["25 m north of the centre", "40 m north-east of the centre"]"#])
        }
        // The live server has shut down now.
        let checks = try await child.results()
        #expect(checks.count >= 18, "\(checks)")
        for c in checks {
            #expect(c["ok"] as? Bool == true, "\(c["check"] ?? "?"): \(c["detail"] ?? "")")
        }
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("wall-live.png").path))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("wall-offline.png").path))
    }

    /// A stream refused for the network's share (429, which EventSource never retries): the
    /// page polls the wall instead of sitting offline (before, it showed nothing).
    @Test(.timeLimit(.minutes(4))) func aRefusedStreamFallsBackToPolling() async throws {
        let child = try PageCheck(name: "wall-refused")
        try await AppFixture.run(.live, streamsPerNetwork: 1, streamDuration: .seconds(120)) { f in
            try await f.makeVenue()
            try await f.crowd(at(0, 25), people: 3, startingAt: 0)
            let port = try #require(f.client.port)
            try await child.run(script: "wall_refused_check.py", arguments: ["http://127.0.0.1:\(port)", "piazza", child.out.path])
        }
        let checks = try await child.results()
        #expect(checks.count == 3, "\(checks)")
        for c in checks {
            #expect(c["ok"] as? Bool == true, "\(c["check"] ?? "?"): \(c["detail"] ?? "")")
        }
    }
}
