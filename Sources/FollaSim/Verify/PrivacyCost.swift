import FollaCore
import FollaGeo

/// What the privacy policy costs honest people in a run, measured against the truth:
/// how many of the people the server counts are shown where their group really is, how
/// long a phone waits before it counts, and how many shown groups carry stats.
public struct PrivacyCost: Codable, Sendable, Equatable {
    /// Phones the server surely counts at the end of the run.
    public var counted: Int
    /// Phones seen live at the end (counted or not yet).
    public var live: Int
    /// Share of the counted phones with a shown group (not a cell) within 20 m of them.
    public var shownWithin20m: Double
    /// Seconds from a phone's first accepted ping to the ping that made it count.
    public var establishDelayP50S: Double
    public var establishDelayP90S: Double
    /// Groups shown (not cells), and of those, how many with an age/sex breakdown.
    public var groupsShown: Int
    public var groupsWithStats: Int

    /// - Parameters:
    ///   - groups: the server's groups around the hotspots (as fetched for verification).
    ///   - truth: the simulator's acknowledged truth.
    ///   - now: the run's elapsed time.
    public static func measure(groups: [[String: Any]], truth: GroundTruth, at now: Double) -> PrivacyCost {
        var seen = Set<String>()
        var shown: [Coordinate] = []
        var withStats = 0
        for g in groups {
            guard let lat = g["lat"] as? Double, let lon = g["lon"] as? Double, seen.insert("\(lat),\(lon)").inserted,
                  g["coarsened"] as? Bool == false else { continue }
            shown.append(Coordinate(latitude: lat, longitude: lon))
            if g["stats"] is [String: Any] { withStats += 1 }
        }
        let live = truth.live(at: now, ttl: 1200)
        // (Measured pair by pair should the plane fail: never a silent 0.)
        let near = (try? Self.count(live.certain, within: 20, of: shown)) ?? Self.countPairwise(live.certain, within: 20, of: shown)
        let delays = truth.establishDelays().sorted()
        func pct(_ q: Double) -> Double { delays.isEmpty ? 0 : delays[min(delays.count - 1, Int(Double(delays.count) * q))] }
        return PrivacyCost(
            counted: live.certain.count, live: truth.liveCount(at: now, ttl: 1200),
            shownWithin20m: live.certain.isEmpty ? 0 : Double(near) / Double(live.certain.count),
            establishDelayP50S: pct(0.5), establishDelayP90S: pct(0.9), groupsShown: shown.count, groupsWithStats: withStats)
    }

    /// How many of `phones` have one of `groups` within `metres` (geodesic).
    ///
    /// Candidates come from an STRtree over the groups in a local plane, each then measured
    /// on the ellipsoid. Every group measured against every phone took half a minute of the
    /// generator's CPU at the end of a 100 000-phone run (~80 000 phones by ~1 000 groups),
    /// and was counted in its CPU per request.
    /// - Parameters:
    ///   - phones: where the counted phones are.
    ///   - metres: the distance.
    ///   - groups: where the groups are shown.
    static func count(_ phones: [Coordinate], within metres: Double, of groups: [Coordinate]) throws(GeoError) -> Int {
        guard let centre = groups.first else { return 0 }
        let plane = try LocalProjection(centre: centre)
        let index = try SpatialIndex(context: GeometryContext(), points: groups.map { c throws(GeoError) in try plane.forward(c) })
        // The plane is metric to well under a millimetre per metre within a city: 1 % and a
        // metre more leaves no true neighbour out; the geodesic decides.
        let reach = metres * 1.01 + 1
        var near = 0
        for p in phones {
            let candidates = index.indices(within: reach, of: try plane.forward(p))
            if candidates.contains(where: { Geodesic.wgs84.distance(from: p, to: groups[$0]) <= metres }) { near += 1 }
        }
        return near
    }

    /// ``count(_:within:of:)`` by measuring every group against every phone.
    static func countPairwise(_ phones: [Coordinate], within metres: Double, of groups: [Coordinate]) -> Int {
        phones.count { p in groups.contains { Geodesic.wgs84.distance(from: p, to: $0) <= metres } }
    }

    public var line: String {
        String(format: "privacy cost: %d of %d live phones counted; %.1f %% of them shown within 20 m; counted after %.0f s (p50), %.0f s (p90); %d of %d groups with stats",
               counted, live, shownWithin20m * 100, establishDelayP50S, establishDelayP90S, groupsWithStats, groupsShown)
    }
}
