import FollaCore
import Foundation
import Logging
import PostgresNIO

/// Venues: create, replace, delete, and the area a wall covers.
public struct VenueStore: Sendable {
    /// Read for every statement: the pool is renewed after an outage.
    public var client: PostgresClient { pool.client }
    public let pool: DatabasePool
    let logger: Logger

    public init(pool: DatabasePool, logger: Logger) {
        self.pool = pool
        self.logger = logger
    }

    static func wkt(_ ring: [Coordinate]) -> String {
        "POLYGON((" + ring.map { "\($0.longitude) \($0.latitude)" }.joined(separator: ",") + "))"
    }

    public enum WriteOutcome: Sendable { case created, replaced, exists }

    /// Inserts, or with `replace` upserts. `.exists` when the slug is taken and not replacing.
    public func save(_ venue: VenueDefinition, replace: Bool, at now: Date) async throws -> WriteOutcome {
        let area = Self.wkt(venue.ring)
        let rows: [PostgresRow]
        if replace {
            rows = try await client.committed("""
                INSERT INTO venue (slug, name, area, created_at, updated_at)
                VALUES (\(venue.slug), \(venue.name), ST_GeogFromText(\(area)), \(now), \(now))
                ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name, area = EXCLUDED.area, updated_at = EXCLUDED.updated_at
                RETURNING (xmax = 0)
                """, logger: logger)
        } else {
            rows = try await client.committed("""
                INSERT INTO venue (slug, name, area, created_at, updated_at)
                VALUES (\(venue.slug), \(venue.name), ST_GeogFromText(\(area)), \(now), \(now))
                ON CONFLICT (slug) DO NOTHING RETURNING true
                """, logger: logger)
        }
        guard let row = rows.first else { return .exists }
        return try row.decode(Bool.self) ? .created : .replaced
    }

    /// Throws `FieldError` (a 400) for a slug no venue can have, as reading or replacing one does.
    public func delete(_ slug: String) async throws -> Bool {
        try VenueDefinition.checkSlug(slug)
        return try await !client.committed("DELETE FROM venue WHERE slug = \(slug) RETURNING 1", logger: logger).isEmpty
    }

    public func name(of slug: String) async throws -> String? {
        try await client.rows("SELECT name FROM venue WHERE slug = \(slug)", logger: logger).first?.decode(String.self)
    }
}
