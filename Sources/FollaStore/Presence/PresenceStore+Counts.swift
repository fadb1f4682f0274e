import PostgresNIO

extension PresenceStore {
    /// How much is live, for the metrics: places with people, devices in a place, and this
    /// database's backends by state (what the connection pools of every instance hold).
    public struct LiveCounts: Sendable {
        public var places: Int
        public var devices: Int
        public var activeBackends: Int
        public var idleBackends: Int
    }

    /// One read of ``LiveCounts`` (a scan of the place table, counter columns being
    /// unindexed since SQL/0016, and an index scan of the devices in places; the sweeper
    /// takes it after every sweep).
    public func liveCounts() async throws -> LiveCounts {
        let rows = try await pool.client.rows("""
            SELECT (SELECT count(*) FROM place WHERE counted > 0)::int AS places,
                   (SELECT count(*) FROM device WHERE place_id IS NOT NULL)::int AS devices,
                   (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active')::int AS active,
                   (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle%')::int AS idle
            """, logger: logger)
        let c = rows[0].makeRandomAccess()
        return LiveCounts(places: try c["places"].decode(Int.self), devices: try c["devices"].decode(Int.self),
                          activeBackends: try c["active"].decode(Int.self), idleBackends: try c["idle"].decode(Int.self))
    }
}
