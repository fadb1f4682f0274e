import FollaCore
import Logging
import PostgresNIO

/// The places changed since a horizon (SQL/0014's cursor, kept in `place_touch` since 0016),
/// for an in-process read model.
public struct PlaceChanges: Sendable {
    /// One look at the database.
    public struct Delta: Sendable {
        /// Places with established people in them, as readers see them (with message counts).
        public var live: [LivePlace]
        /// Places that changed and no longer show (emptied, no one established left, or deleted).
        public var gone: [Int64]
        /// The newest visible messages (up to `messagesPerPlace`) of the live places that
        /// have any, read on the same server right after the places.
        public var messages: [Int64: [Message]]
        /// The horizon to pass next time.
        public var horizon: Int64
    }

    /// How long a touch is kept at least after its transaction ended (the sweeper drops older ones).
    public static let touchRetention: Duration = .seconds(300)
    /// A reader whose last look is older than this reads everything again: touches it has
    /// not seen may have been dropped by then (well within `touchRetention`).
    public static let reloadAfter: Duration = .seconds(60)

    public let places: PlaceReads

    public init(places: PlaceReads) {
        self.places = places
    }

    /// Every live place (`since` nil), or every place changed, touched or deleted by a
    /// transaction at or after `since` (a previous delta's horizon), with the newest
    /// `messagesPerPlace` messages of those that have any.
    public func read(since: Int64?, messagesPerPlace: Int) async throws -> Delta {
        let query = Self.sql(since: since)
        let logger = places.logger
        // One server for both reads: the messages must be no older than the places (a
        // replica could lag behind the primary the places came from).
        return try await places.reads.run { client in
            var delta = Delta(live: [], gone: [], messages: [:], horizon: 0)
            for row in try await client.rows(query, logger: logger) {
                let c = row.makeRandomAccess()
                delta.horizon = try c["horizon"].decode(Int64.self)
                guard let changed = try c["changed_id"].decode(Int64?.self) else { continue }
                if try c["people"].decode(Int?.self) ?? 0 > 0 {
                    delta.live.append(try PlaceReads.place(row))
                } else {
                    delta.gone.append(changed)  // emptied, no one established, or deleted
                }
            }
            let talking = delta.live.filter { $0.messageCount > 0 }.map(\.id)
            delta.messages = try await PlaceReads.latestMessages(perPlace: messagesPerPlace, of: talking, on: client, logger: logger)
            return delta
        }
    }

    /// The delta's statement: the horizon (the oldest transaction running in this very
    /// snapshot) on every row, and one row with only the horizon when nothing changed.
    static func sql(since: Int64?) -> PostgresQuery {
        let changed = since.map {
            """
            SELECT DISTINCT place_id AS id FROM place_touch WHERE changed >= \($0)::text::xid8
            """
        } ?? "SELECT id FROM place WHERE shown_counted > 0"
        return """
            WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS horizon),
                 c AS (\(unescaped: changed))
            SELECT h.horizon, x.*
            FROM h LEFT JOIN (
                SELECT c.id AS changed_id, \(unescaped: PlaceReads.columns) FROM c LEFT JOIN place p ON p.id = c.id
            ) x ON true
            """
    }

    /// The sweeper's statement: records a mark (the oldest transaction running now), then
    /// drops the touches of transactions older than the newest mark older than `retention`,
    /// and the marks older than that one (SQL/0017).
    /// - Parameter retention: how long a touch outlives its transaction's end at least
    ///   (`touchRetention`; tests pass less).
    public static func purgeSQL(retention: Duration = touchRetention) -> PostgresQuery {
        let seconds = retention / .seconds(1)
        return """
            WITH mark AS (INSERT INTO place_touch_mark DEFAULT VALUES),
                 cut AS (SELECT max(horizon) AS horizon FROM place_touch_mark WHERE at < now() - make_interval(secs => \(seconds)::float8)),
                 gone AS (DELETE FROM place_touch WHERE changed < (SELECT horizon FROM cut))
            DELETE FROM place_touch_mark WHERE horizon < (SELECT horizon FROM cut)
            """
    }
}
