import FollaCore

/// End-of-run checks against the server.
public enum SimVerify {
    /// The server's groups around each hotspot (within the verification radius), fetched once
    /// and used both for the counts and for the report's map.
    public static func serverGroups(_ scenario: Scenario, client: FollaClient) async throws -> [String: [[String: Any]]] {
        var out: [String: [[String: Any]]] = [:]
        for h in scenario.hotspots {
            out[h.name] = try await client.groups(around: h.centre, radius: Verification.radius(h))
        }
        return out
    }

    public static func compare(_ scenario: Scenario, groups: [String: [[String: Any]]], truth: GroundTruth, at elapsed: Double) -> Verification {
        let (certain, uncertain) = truth.live(at: elapsed, ttl: 1200)
        let server = groups.mapValues { $0.reduce(0) { $0 + ($1["people"] as? Int ?? 0) } }
        return Verification.compare(hotspots: scenario.hotspots, radius: Verification.radius,
                                    certain: certain, uncertain: uncertain, server: server)
    }

    /// [lat, lon, people] of every group once, for the report's map.
    public static func mapPoints(_ groups: [String: [[String: Any]]]) -> [[Double]] {
        var seen = Set<Int>()
        var out: [[Double]] = []
        for g in groups.values.joined() {
            guard let id = g["id"] as? Int, seen.insert(id).inserted,
                  let lat = g["lat"] as? Double, let lon = g["lon"] as? Double, let people = g["people"] as? Int
            else { continue }
            out.append([lat, lon, Double(people)])
        }
        return out
    }
}
