import FollaCore
import Foundation

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

    /// Seconds to wait after the load before reading the server's groups: long enough for the
    /// last pings to commit and the groups cache (1 s) to expire, and, at k > 1, for the
    /// first sweep of the next whole minute to show the counts they moved (`SQL/0029`: a
    /// sweep every 5 s by default; readers see counts as that sweep left them).
    /// - Parameters:
    ///   - now: when the load ended.
    ///   - k: the server's minimum group size (1: counts show at once).
    ///   - sweepInterval: the server's `--sweep-interval`.
    public static func settle(after now: Date, k: Int, sweepInterval: Double = 5) -> Double {
        let settled = 1.6
        guard k > 1 else { return settled }
        let t = now.timeIntervalSince1970 + settled
        let minute = (t / 60).rounded(.up) * 60
        return minute - now.timeIntervalSince1970 + sweepInterval + settled
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
