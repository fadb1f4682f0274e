import FollaCore
import PostgresNIO

extension PlaceReads {
    /// Every live place with established people, city-wide: what a map's read model is
    /// built from. No message counts (a map draws people, and the count is a subquery per row).
    public static let allLiveSQL: PostgresQuery = """
        SELECT \(unescaped: placeColumns), 0 AS messages
        FROM place p
        WHERE p.shown_counted > 0
        ORDER BY p.id
        """

    public func allLive() async throws -> [LivePlace] {
        try await places(Self.allLiveSQL)
    }
}
