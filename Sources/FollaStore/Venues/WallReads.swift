import FollaCore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// What a wall is made of: the live places that may show inside an area, then the newest
/// messages of the places the privacy policy placed inside it.
///
/// Places are selected by their *published* position, which only the policy knows: so the
/// store hands out every place whose anchor lies within `margin` of the area (the furthest
/// a published position can be from its anchor), and the caller keeps those it publishes
/// inside. Selecting by the real anchor would let a radius or area edge find it.
public struct WallReads: Sendable {
    /// Where the reads go: the replica when there is one.
    public let reads: ReadDatabase
    let logger: Logger
    /// Wall reads that reached the database (the micro-cache test watches this).
    public let queries = Counter()

    public init(reads: ReadDatabase, logger: Logger) {
        self.reads = reads
        self.logger = logger
    }

    public enum Area: Sendable, Hashable {
        case venue(String)
        case circle(Coordinate, radius: Double)
    }

    /// The candidates of an area; nil when the venue does not exist.
    /// - Parameters:
    ///   - area: a venue by slug, or a circle.
    ///   - margin: metres around the area to look for anchors.
    public func candidates(_ area: Area, margin: Double) async throws -> WallCandidates? {
        queries.increment()
        switch area {
        case let .circle(c, radius):
            let places = try await places("""
                SELECT \(unescaped: PlaceReads.columns) FROM place p WHERE p.shown_counted > 0
                  AND ST_DWithin(p.shown_anchor, ST_SetSRID(ST_MakePoint(\(c.longitude)::float8, \(c.latitude)::float8), 4326)::geography,
                                 \(radius + margin)::float8)
                """)
            return WallCandidates(name: nil, ring: nil, places: places)
        case .venue(let slug):
            let logger = logger
            let rows = try await reads.run { try await $0.rows("""
                SELECT name, (SELECT array_agg(ST_Y((dp).geom) ORDER BY (dp).path) FROM ST_DumpPoints(ST_ExteriorRing(area::geometry)) dp),
                       (SELECT array_agg(ST_X((dp).geom) ORDER BY (dp).path) FROM ST_DumpPoints(ST_ExteriorRing(area::geometry)) dp)
                FROM venue WHERE slug = \(slug)
                """, logger: logger) }
            guard let row = rows.first else { return nil }
            let (name, lats, lons) = try row.decode((String, [Double], [Double]).self)
            let places = try await places("""
                SELECT \(unescaped: PlaceReads.columns) FROM place p, venue v WHERE v.slug = \(slug) AND p.shown_counted > 0
                  AND ST_DWithin(v.area, p.shown_anchor, \(margin)::float8)
                """)
            return WallCandidates(name: name, ring: zip(lats, lons).map { Coordinate(latitude: $0, longitude: $1) }, places: places)
        }
    }

    /// The newest `limit` visible messages of these places, newest first.
    public func messages(of placeIDs: [Int64], limit: Int) async throws -> [Message] {
        guard !placeIDs.isEmpty, limit > 0 else { return [] }
        let logger = logger
        return try await reads.run { client in
            try await client.rows("""
                SELECT \(unescaped: MessageRow.columns) FROM message
                WHERE place_id = ANY(\(placeIDs)::bigint[]) AND NOT hidden ORDER BY \(unescaped: MessageRow.newestFirst) LIMIT \(limit)
                """, logger: logger).map(MessageRow.message)
        }
    }

    private func places(_ query: PostgresQuery) async throws -> [LivePlace] {
        let logger = logger
        return try await reads.run { try await PlaceReads.places($0.rows(query, logger: logger)) }
    }
}

/// The raw material of a wall, before privacy: candidate places and the area's shape.
public struct WallCandidates: Sendable {
    public var name: String?
    /// The venue's exterior ring; nil for a circle.
    public var ring: [Coordinate]?
    public var places: [LivePlace]
}

/// A thread-safe counter.
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    public init() {}
    public func increment() { value.add(1, ordering: .relaxed) }
    public var current: Int { value.load(ordering: .relaxed) }
}
