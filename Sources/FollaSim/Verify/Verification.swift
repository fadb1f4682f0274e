import FollaCore
import FollaGeo

/// The comparison of the simulator's truth with the server's answer, hotspot by hotspot.
public struct Verification: Sendable {
    /// A place counts when its anchor is within the radius, and a phone is within the join
    /// radius of its place's anchor. So the server's count must lie between the phones
    /// within r − join (their anchors are surely inside) and those within r + join (plus
    /// phones near their TTL, which the sweeper may or may not have expired yet).
    public struct Row: Sendable, Equatable {
        public var hotspot: String
        public var expected: Int
        /// How many more the server may count: boundary phones and phones near the TTL.
        public var uncertain: Int
        public var server: Int
        public var ok: Bool { server >= expected && server <= expected + uncertain }
    }

    public var rows: [Row]
    public var passed: Bool { rows.allSatisfy(\.ok) }

    /// Counts phones within `radius(h)` of each hotspot and sets them against the server's people.
    /// - Parameter slack: how far a phone can be from the position its group is shown at
    ///   (the join radius; plus half a cell diagonal when small groups show their cell).
    public static func compare(
        hotspots: [Scenario.Hotspot], radius: (Scenario.Hotspot) -> Double, slack joinRadius: Double = 10,
        certain: [Coordinate], uncertain: [Coordinate], server: [String: Int]
    ) -> Verification {
        Verification(rows: hotspots.map { h in
            let r = radius(h)
            let d = { (c: Coordinate) in Geodesic.wgs84.distance(from: h.centre, to: c) }
            let distances = certain.map(d)  // (each measured once: 100 000 phones at the end of a run)
            let surely = distances.count { $0 <= r - joinRadius }
            let possibly = distances.count { $0 <= r + joinRadius } + uncertain.count { d($0) <= r + joinRadius }
            return Row(hotspot: h.name, expected: surely, uncertain: possibly - surely, server: server[h.name] ?? 0)
        })
    }

    /// The radius used for each hotspot: four spreads, plus the join radius and a margin.
    public static func radius(_ h: Scenario.Hotspot) -> Double { min(h.spreadM * 4 + 30, 50_000) }
}
