import FollaCore
import FollaGeo
@testable import FollaSim
import Foundation
import Testing

@Suite struct ScenarioLoaderTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/scenarios")

    @Test(arguments: ["bologna-evening.json", "bologna-100k.json", "stadium-festival.json"])
    func shippedScenariosLoad(_ name: String) throws {
        let s = try ScenarioLoader.load(Self.fixtures.appendingPathComponent(name))
        #expect(s.phones >= 5000 && !s.hotspots.isEmpty)
    }

    @Test(arguments: [
        ("[]", "not a JSON object"),
        (#"{"phones":10,"duration_s":5,"hotspots":[]}"#, "name: is required"),
        (#"{"name":"x","phones":0,"duration_s":5,"hotspots":[{"name":"a","lat":1,"lon":1,"weight":1,"spread_m":5}]}"#, "phones: must be between"),
        (#"{"name":"x","phones":5,"duration_s":5,"hotspots":[{"name":"a","lat":91,"lon":1,"weight":1,"spread_m":5}]}"#, "hotspots[0].lat: must be between -90 and 90"),
        (#"{"name":"x","phones":5,"duration_s":5,"hotspots":[{"name":"a","lat":1,"lon":1,"weight":1}]}"#, "hotspots[0].spread_m: is required"),
        (#"{"name":"x","phones":5,"duration_s":5,"hotspots":[{"name":"a","lat":1,"lon":1,"weight":1,"spread_m":5,"colour":1}]}"#, "hotspots[0].colour: unknown field"),
        (#"{"name":"x","phones":5,"duration_s":5,"hotspots":[{"name":"a","lat":1,"lon":1,"weight":1,"spread_m":5}],"behaviour":{"walk_speed_mps":30}}"#, "behaviour.walk_speed_mps"),
        (#"{"name":"x","phones":5,"duration_s":5,"hotspots":[{"name":"a","lat":1,"lon":1,"weight":1,"spread_m":5}],"screens":{"hotspots":["b"],"per_venue":1}}"#, "no hotspot named b"),
        (#"{"name":"x","phones":"many","duration_s":5,"hotspots":[]}"#, "phones: has the wrong type"),
    ])
    func badFilesAreRefusedClearly(json: String, message: String) {
        do {
            _ = try ScenarioLoader.parse(Data(json.utf8))
            Issue.record("accepted: \(json)")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test func sameSeedSameRun() throws {
        let s = try ScenarioLoader.load(Self.fixtures.appendingPathComponent("bologna-evening.json"))
        var a = Population(s), b = Population(s)
        for t in stride(from: 1.0, through: 90, by: 3) {
            #expect(a.advance(to: t).map(\.action) == b.advance(to: t).map(\.action))
        }
    }
}

@Suite struct MovementTests {
    /// Walkers stay on the geodesic and move at the configured speed.
    @Test func walkersFollowTheGeodesicAtSpeed() {
        let from = Coordinate(latitude: 44.49381, longitude: 11.34305), to = Coordinate(latitude: 44.49703, longitude: 11.35174)
        let walk = Walk(from: from, to: to, start: 10, speed: 1.4)
        let line = Geodesic.wgs84.inverse(from: from, to: to)
        #expect(abs(walk.end - (10 + line.distance / 1.4)) < 1e-9)
        var previous = from
        for t in stride(from: 10.0, through: walk.end, by: 7) {
            let p = walk.position(at: t)
            // Distance from the start grows at the speed; the point lies on the line.
            #expect(abs(Geodesic.wgs84.distance(from: from, to: p) - (t - 10) * 1.4) < 1e-6)
            #expect(abs(Geodesic.wgs84.distance(from: from, to: p) + Geodesic.wgs84.distance(from: p, to: to) - line.distance) < 1e-6)
            #expect(Geodesic.wgs84.distance(from: previous, to: p) <= 7 * 1.4 + 1e-6)
            previous = p
        }
        #expect(walk.position(at: walk.end + 100) == to)
        #expect(walk.position(at: 0) == from)
    }

    @Test func populationPingsAtTheIntervalAndLeaves() throws {
        var s = try ScenarioLoader.load(ScenarioLoaderTests.fixtures.appendingPathComponent("bologna-evening.json"))
        s.phones = 200
        s.behaviour.stayMeanS = 20
        s.behaviour.walkProbability = 0
        s.behaviour.checkoutProbability = 1
        var p = Population(s)
        var checkIns = 0, checkOuts = 0
        for t in stride(from: 1.0, through: 600, by: 1) {
            for (_, a) in p.advance(to: t) {
                if case .checkIn = a { checkIns += 1 }
                if case .checkOut = a { checkOuts += 1 }
            }
        }
        // With short stays and no walking, everyone has left (and checked out) by the end.
        #expect(checkOuts == 200)
        #expect(checkIns >= 200)
        #expect(p.phones.allSatisfy { $0.activity == .gone && $0.checkedOut })
    }
}

@Suite struct VerificationTests {
    let h = Scenario.Hotspot(name: "Piazza", lat: 44.49381, lon: 11.34305, weight: 1, spreadM: 20)

    func phones(_ n: Int, at metres: Double) -> [Coordinate] {
        (0..<n).map { Geodesic.wgs84.destination(from: h.centre, bearing: Double($0 * 37 % 360), distance: metres) }
    }

    @Test func exactCountsPassAndAWrongCountIsCaught() {
        let certain = phones(50, at: 30)
        let right = Verification.compare(hotspots: [h], radius: { _ in 100 }, certain: certain, uncertain: [], server: ["Piazza": 50])
        #expect(right.passed)
        for wrong in [49, 51, 0] {
            let v = Verification.compare(hotspots: [h], radius: { _ in 100 }, certain: certain, uncertain: [], server: ["Piazza": wrong])
            #expect(!v.passed, "server said \(wrong)")
        }
    }

    @Test func boundaryAndTTLPhonesWidenTheBand() {
        let certain = phones(10, at: 30) + phones(4, at: 95)  // 95 m: within the join radius of the 100 m edge
        let nearTTL = phones(3, at: 30)
        let v = { (n: Int) in Verification.compare(hotspots: [self.h], radius: { _ in 100 }, certain: certain, uncertain: nearTTL, server: ["Piazza": n]) }
        #expect(v(10).passed && v(17).passed)
        #expect(!v(9).passed && !v(18).passed)
    }
}
