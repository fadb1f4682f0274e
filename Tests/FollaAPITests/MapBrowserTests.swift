import FollaCore
import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The map page (`GET /map`) in a real headless Chromium against a live server
/// (Tests/Browser/map_check.py drives it over the DevTools protocol and compares what it
/// draws with the API's answer for the same box, computed there independently), and the
/// page's own query fields. Screenshots land in test-output/map/.
@Suite struct MapBrowserTests {
    /// The page's default centre (Bologna), where the fixture's crowds are.
    static let start = Coordinate(latitude: 44.4938, longitude: 11.3426)

    @Test(.timeLimit(.minutes(6))) func mapPageInARealBrowser() async throws {
        let child = try PageCheck(name: "map")
        let out = child.out
        // k = 2: the lone person shows only as its cell (a coarsened circle).
        try await AppFixture.run(.live, k: 2) { f in
            let s = Self.start
            // At zoom 13 (512-pixel tiles, ~6.8 m a pixel here) on a 1280×720 window, the
            // view is ~8.7 km × 4.9 km. Three crowds within 100 m of the centre make one
            // cluster of 9 people; a crowd 1.5 km east, a lone person 1.2 km south-south-west,
            // a crowd 3.9 km east (leaves the view when it is dragged 300 px east), and one
            // 5.5 km west (comes into it): 21 people in the first view, 22 after the drag.
            try await f.crowd(at(0, 30, from: s), people: 3, startingAt: 0)
            try await f.crowd(at(120, 60, from: s), people: 2, startingAt: 10)
            try await f.crowd(at(240, 50, from: s), people: 4, startingAt: 20)
            try await f.crowd(at(90, 1500, from: s), people: 5, startingAt: 30)
            try await f.crowd(at(200, 1200, from: s), people: 1, startingAt: 40)
            try await f.crowd(at(90, 3900, from: s), people: 6, startingAt: 50)
            try await f.crowd(at(270, 5500, from: s), people: 7, startingAt: 60)
            // Either side of 180°, and one well away from both.
            try await f.crowd(Coordinate(latitude: -17.7, longitude: 179.95), people: 2, startingAt: 100)
            try await f.crowd(Coordinate(latitude: -17.7, longitude: -179.95), people: 3, startingAt: 110)
            try await f.crowd(Coordinate(latitude: -17.7, longitude: 170), people: 4, startingAt: 120)
            let config = """
                {"start": {"lat": \(s.latitude), "lon": \(s.longitude), "zoom": 13}, "start_people": 21,
                 "pan": [300, 80], "pan_people": 22,
                 "antimeridian": {"lat": -17.7, "lon": 180, "zoom": 12, "people": 5}}
                """
            let port = try #require(f.client.port)
            try await child.run(script: "map_check.py", arguments: ["http://127.0.0.1:\(port)", out.path, config])
        }
        // The live server has shut down now.
        let checks = try await child.results()
        #expect(checks.count >= 60, "\(checks)")
        for c in checks {
            #expect(c["ok"] as? Bool == true, "\(c["check"] ?? "?"): \(c["detail"] ?? "")")
        }
        for name in ["map-before.png", "map-after-zoom.png", "map-offline.png"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path), "\(name)")
        }
    }

    /// The page is self-contained and opens where it is asked to; a start it cannot take
    /// (out of range, empty, not a number, an unknown field) is a 400 problem naming the
    /// field, so nothing but a number is ever written into the page's script.
    @Test func mapPageStartAndBadFields() async throws {
        try await AppFixture.run { f in
            let page = try await f.get("/map")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true)
            let html = String(buffer: page.body)
            #expect(html.contains(#"var start = {"lat": 44.4938, "lon": 11.3426, "zoom": 13};"#))
            #expect(html.contains("<canvas") && html.contains("/v1/groups?"))
            #expect(!html.contains("http://") && !html.contains("https://") && !html.contains("src="))
            #expect(!html.contains("innerHTML"))
            let there = String(buffer: try await f.get("/map?lat=-17.7&lon=180&zoom=0").body)
            #expect(there.contains(#"var start = {"lat": -17.7, "lon": 180.0, "zoom": 0};"#))
            // Either alone keeps the other's default; the whole latitude range is accepted.
            #expect(String(buffer: try await f.get("/map?lat=89.5").body).contains(#"var start = {"lat": 89.5, "lon": 11.3426, "zoom": 13};"#))
            #expect(try await f.get("/map?lon=-180&zoom=22").status == .ok)
            #expect(try await f.client.execute(uri: "/map", method: .head).status == .ok)
            for (query, field) in [("zoom=99", "zoom"), ("zoom=-1", "zoom"), ("zoom=1.5", "zoom"), ("zoom=", "zoom"),
                                   ("lat=", "lat"), ("lat=91", "lat"), ("lat=abc", "lat"), ("lat=1e999", "lat"),
                                   ("lat=%3Cscript%3E", "lat"), ("lon=180.5", "lon"), ("lon=NaN", "lon"), ("foo=1", "foo"),
                                   ("lat=44&lat=45", "lat"), ("bbox=1,2,3,4", "bbox")] {
                let r = try await f.get("/map?\(query)")
                #expect(r.status == .badRequest, "\(query)")
                #expect(r.headers[.contentType] == "application/problem+json", "\(query)")
                #expect(((try? f.json(r))?["invalid_params"] as? [[String: Any]])?.first?["name"] as? String == field, "\(query)")
            }
        }
    }
}
