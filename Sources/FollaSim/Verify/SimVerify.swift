import FollaCore

/// End-of-run checks against the server.
public enum SimVerify {
    public static func run(_ scenario: Scenario, client: FollaClient, truth: GroundTruth, at elapsed: Double) async throws -> Verification {
        let (certain, uncertain) = truth.live(at: elapsed, ttl: 1200)
        var server: [String: Int] = [:]
        for h in scenario.hotspots {
            server[h.name] = try await client.people(around: h.centre, radius: Verification.radius(h))
        }
        return Verification.compare(hotspots: scenario.hotspots, radius: Verification.radius,
                                    certain: certain, uncertain: uncertain, server: server)
    }

    /// [lat, lon, people] of the groups around each hotspot, for the report's map.
    public static func groupsSample(_ scenario: Scenario, client: FollaClient) async throws -> [[Double]] {
        var seen = Set<Int>()
        var out: [[Double]] = []
        for h in scenario.hotspots {
            for g in try await client.groups(around: h.centre, radius: Verification.radius(h)) {
                guard let id = g["id"] as? Int, seen.insert(id).inserted,
                      let lat = g["lat"] as? Double, let lon = g["lon"] as? Double, let people = g["people"] as? Int
                else { continue }
                out.append([lat, lon, Double(people)])
            }
        }
        return out
    }
}
