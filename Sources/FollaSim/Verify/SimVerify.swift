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

    /// - Parameter k: the server's minimum group size: above 1, a group may be shown at its
    ///   ~100 m cell centre (up to 71 m from its anchor), which widens the band of phones
    ///   that may or may not fall inside a hotspot's radius.
    public static func compare(_ scenario: Scenario, groups: [String: [[String: Any]]], truth: GroundTruth, at elapsed: Double,
                               k: Int = 1) -> Verification {
        let (certain, uncertain) = truth.live(at: elapsed, ttl: 1200)
        let server = groups.mapValues { $0.reduce(0) { $0 + ($1["people"] as? Int ?? 0) } }
        return Verification.compare(hotspots: scenario.hotspots, radius: Verification.radius,
                                    slack: 10 + (k > 1 ? 71 : 0), certain: certain, uncertain: uncertain, server: server)
    }

    /// [lat, lon, people] of every group once, for the report's map.
    public static func mapPoints(_ groups: [String: [[String: Any]]]) -> [[Double]] {
        var seen = Set<String>()
        var out: [[Double]] = []
        for g in groups.values.joined() {
            // Cells of small groups have no id: one point per position.
            guard let lat = g["lat"] as? Double, let lon = g["lon"] as? Double, let people = g["people"] as? Int,
                  seen.insert("\(lat),\(lon)").inserted
            else { continue }
            out.append([lat, lon, Double(people)])
        }
        return out
    }
}
