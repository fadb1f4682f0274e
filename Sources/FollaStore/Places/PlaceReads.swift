import FollaCore
import Foundation
import Logging
import PostgresNIO

/// The read side of places: live places near a point, one place, latest messages.
///
/// Searches are `ST_DWithin` on geography against the GiST index of anchors (`place_anchor`:
/// only live places have one), so their cost follows the places near the point, not the table.
/// Every read goes to `reads`: the replica when there is one.
public struct PlaceReads: Sendable {
    public let reads: ReadDatabase
    public let logger: Logger

    public init(reads: ReadDatabase, logger: Logger) {
        self.reads = reads
        self.logger = logger
    }

    /// The SQL of `nearby`, exposed so tests can EXPLAIN it.
    public static func nearbySQL(lat: Double, lon: Double, radius: Double) -> PostgresQuery {
        """
        SELECT \(unescaped: columns)
        FROM place p
        WHERE p.shown_counted > 0
          AND ST_DWithin(p.shown_anchor, ST_SetSRID(ST_MakePoint(\(lon)::float8, \(lat)::float8), 4326)::geography, \(radius)::float8)
        """
    }

    /// The columns `place(_:)` reads: established people only, and the reporters' mix.
    static let columns = placeColumns + """
        ,
        (SELECT count(*) FROM message m WHERE m.place_id = p.id AND NOT m.hidden)::integer AS messages
        """

    /// `columns` but the message count (`place(_:)` needs a `messages` column beside them).
    static let placeColumns = """
        p.id, ST_Y(p.shown_anchor::geometry) AS lat, ST_X(p.shown_anchor::geometry) AS lon, p.shown_counted AS people, p.reporters,
        p.age_sum, p.male, p.female, p.last_activity, p.shown_activity, p.mix,
        p.snap_bucket, p.snap_reporters, p.snap_age_sum, p.snap_male, p.snap_female, p.snap_mix
        """

    /// Live places whose anchor is within `radius` metres (geodesic) of `centre`.
    public func nearby(_ centre: Coordinate, radius: Double) async throws -> [LivePlace] {
        try await places(Self.nearbySQL(lat: centre.latitude, lon: centre.longitude, radius: radius))
    }

    /// A place with established people in it, or nil.
    public func place(id: Int64) async throws -> LivePlace? {
        try await places("""
            SELECT \(unescaped: Self.columns) FROM place p WHERE p.id = \(id) AND p.shown_counted > 0
            """).first
    }

    /// The established people of each of these places that exists (live or empty), in one
    /// query: what decides whether they are public, for many at once.
    public func people(of ids: [Int64]) async throws -> [Int64: Int] {
        guard !ids.isEmpty else { return [:] }
        let logger = logger
        return try await reads.run { client in
            var out: [Int64: Int] = [:]
            for row in try await client.rows("SELECT id, shown_counted FROM place WHERE id = ANY(\(ids)::bigint[])", logger: logger) {
                let (id, counted) = try row.decode((Int64, Int).self)
                out[id] = counted
            }
            return out
        }
    }

    /// The newest `perPlace` visible messages of each place, in one query (newest first).
    public func latestMessages(perPlace: Int, of placeIDs: [Int64]) async throws -> [Int64: [Message]] {
        guard perPlace > 0, !placeIDs.isEmpty else { return [:] }
        let logger = logger
        return try await reads.run { try await Self.latestMessages(perPlace: perPlace, of: placeIDs, on: $0, logger: logger) }
    }

    /// `latestMessages(perPlace:of:)` on a given server (the read model reads them where it
    /// read the places).
    static func latestMessages(perPlace: Int, of placeIDs: [Int64], on client: PostgresClient,
                               logger: Logger) async throws -> [Int64: [Message]] {
        guard perPlace > 0, !placeIDs.isEmpty else { return [:] }
        var out: [Int64: [Message]] = [:]
        for row in try await client.rows("""
            SELECT m.*
            FROM unnest(\(placeIDs)::bigint[]) AS p(id)
            CROSS JOIN LATERAL (
                SELECT \(unescaped: MessageRow.columns) FROM message
                WHERE place_id = p.id AND NOT hidden ORDER BY \(unescaped: MessageRow.newestFirst) LIMIT \(perPlace)
            ) m
            """, logger: logger)
        {
            let message = try MessageRow.message(row)
            out[message.placeID ?? 0, default: []].append(message)
        }
        return out
    }

    /// Runs a query of `columns` where reads go, its rows as live places.
    func places(_ query: PostgresQuery) async throws -> [LivePlace] {
        let logger = logger
        return try await reads.run { try await Self.places($0.rows(query, logger: logger)) }
    }

    /// Rows of `columns` as live places (also the walls' candidates).
    static func places(_ rows: [PostgresRow]) throws -> [LivePlace] {
        try rows.map(place)
    }

    /// A row of `columns`, by column name.
    static func place(_ row: PostgresRow) throws -> LivePlace {
        let c = row.makeRandomAccess()
        let people = try c["people"].decode(Int.self)
        // The period's snapshot (SQL/0024) carries the live people count beside its breakdown.
        let snapshot: StatsSnapshot? = try c["snap_bucket"].decode(Int64?.self) == nil ? nil : StatsSnapshot(
            stats: PlaceStats(people: people, reporters: try c["snap_reporters"].decode(Int.self),
                              ageSum: try c["snap_age_sum"].decode(Int.self), male: try c["snap_male"].decode(Int.self),
                              female: try c["snap_female"].decode(Int.self)),
            mix: UInt64(bitPattern: try c["snap_mix"].decode(Int64.self)))
        return LivePlace(
            id: try c["id"].decode(Int64.self),
            anchor: Coordinate(latitude: try c["lat"].decode(Double.self), longitude: try c["lon"].decode(Double.self)),
            stats: PlaceStats(people: people, reporters: try c["reporters"].decode(Int.self),
                              ageSum: try c["age_sum"].decode(Int.self), male: try c["male"].decode(Int.self),
                              female: try c["female"].decode(Int.self)),
            lastActivity: try c["last_activity"].decode(Date.self), messageCount: try c["messages"].decode(Int.self),
            mix: UInt64(bitPattern: try c["mix"].decode(Int64.self)), snapshot: snapshot,
            shownActivity: try c["shown_activity"].decode(Date?.self))
    }
}
