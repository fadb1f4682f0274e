import FollaCore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// What a wall shows, read in one statement per poll: the live places inside the area
/// (for counts, stats and the busiest spots) and the newest visible messages there.
public struct WallReads: Sendable {
    public let client: PostgresClient
    let logger: Logger
    /// Wall reads that reached the database (the micro-cache test watches this).
    public let queries = Counter()

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public enum Area: Sendable, Hashable {
        case venue(String)
        case circle(Coordinate, radius: Double)
    }

    /// nil when the venue does not exist.
    public func read(_ area: Area, messages limit: Int) async throws -> WallData? {
        queries.increment()
        // One statement per poll; only how the area picks its places differs.
        let head: PostgresQuery
        switch area {
        case .venue(let slug):
            head = """
                WITH v AS (SELECT name, area FROM venue WHERE slug = \(slug)),
                     p AS (SELECT pl.* FROM place pl, v WHERE pl.people > 0 AND ST_Covers(v.area, pl.anchor)),
                """
        case let .circle(c, radius):
            head = """
                WITH v AS (SELECT NULL::text AS name),
                     p AS (SELECT pl.* FROM place pl WHERE pl.people > 0
                           AND ST_DWithin(pl.anchor, ST_SetSRID(ST_MakePoint(\(c.longitude)::float8, \(c.latitude)::float8), 4326)::geography, \(radius)::float8)),
                """
        }
        var query = head
        // `limit` is an Int of ours, so inlining it is safe; the area's values stay bound.
        query.sql += """
                 m AS (SELECT m.id, m.place_id, m.body, m.created_at FROM message m JOIN p ON p.id = m.place_id
                       WHERE NOT m.hidden ORDER BY m.id DESC LIMIT \(Int(limit)))
            SELECT 'v', (SELECT name FROM v), NULL::bigint, NULL::float8, NULL::float8, NULL::integer, NULL::integer,
                   NULL::integer, NULL::integer, NULL::integer, NULL::timestamptz, NULL::text
            UNION ALL
            SELECT 'p', NULL, id, ST_Y(anchor::geometry), ST_X(anchor::geometry), people, reporters, age_sum, male, female,
                   last_activity, NULL FROM p
            UNION ALL
            SELECT 'm', NULL, id, NULL, NULL, NULL, NULL, NULL, NULL, place_id::integer, created_at, body FROM m
            """
        let rows = try await client.query(query, logger: logger)
        if case .venue = area { return try await Self.decode(rows) }
        return try await Self.decode(rows, requireVenue: false)
    }

    static func decode(_ rows: PostgresRowSequence, requireVenue: Bool = true) async throws -> WallData? {
        var name: String?
        var places: [LivePlace] = []
        var messages: [Message] = []
        for try await row in rows {
            let (kind, n, id, lat, lon, people, reporters, ageSum, male, female, at, body) = try row.decode(
                (String, String?, Int64?, Double?, Double?, Int?, Int?, Int?, Int?, Int?, Date?, String?).self)
            switch kind {
            case "v": name = n
            case "p":
                places.append(LivePlace(
                    id: id ?? 0, anchor: Coordinate(latitude: lat ?? 0, longitude: lon ?? 0),
                    stats: PlaceStats(people: people ?? 0, reporters: reporters ?? 0, ageSum: ageSum ?? 0, male: male ?? 0, female: female ?? 0),
                    lastActivity: at ?? .distantPast, messageCount: 0))
            default:
                messages.append(Message(id: id ?? 0, placeID: Int64(female ?? 0), text: body ?? "", createdAt: at ?? .distantPast))
            }
        }
        if requireVenue && name == nil { return nil }
        return WallData(name: name, places: places, messages: messages)
    }
}

/// The raw material of a wall, before privacy and formatting.
public struct WallData: Sendable, Equatable {
    public var name: String?
    public var places: [LivePlace]
    /// Newest first.
    public var messages: [Message]

    public init(name: String?, places: [LivePlace], messages: [Message]) {
        self.name = name
        self.places = places
        self.messages = messages
    }
}

/// A thread-safe counter.
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    public init() {}
    public func increment() { value.add(1, ordering: .relaxed) }
    public var current: Int { value.load(ordering: .relaxed) }
}
