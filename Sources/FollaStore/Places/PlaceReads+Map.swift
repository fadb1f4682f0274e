import FollaCore
import PostgresNIO

extension PlaceReads {
    /// Every live place with established people, city-wide: what a map's read model is
    /// built from. No message counts (a map draws people, and the count is a subquery per row).
    public static let allLiveSQL: PostgresQuery = """
        SELECT p.id, ST_Y(p.anchor::geometry) AS lat, ST_X(p.anchor::geometry) AS lon, p.counted AS people, p.reporters,
               p.age_sum, p.male, p.female, p.last_activity, p.mix, 0 AS messages
        FROM place p
        WHERE p.counted > 0
        ORDER BY p.id
        """

    public func allLive() async throws -> [LivePlace] {
        try await places(Self.allLiveSQL)
    }
}
