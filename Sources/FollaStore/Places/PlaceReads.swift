import FollaCore
import Foundation
import Logging
import PostgresNIO

/// The read side of places: live places near a point, one place, latest messages.
///
/// Searches are `ST_DWithin` on geography against the partial GiST index of live places
/// (`place_live_anchor`), so their cost follows the places near the point, not the table.
public struct PlaceReads: Sendable {
    public let client: PostgresClient
    public let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The SQL of `nearby`, exposed so tests can EXPLAIN it.
    public static func nearbySQL(lat: Double, lon: Double, radius: Double) -> PostgresQuery {
        """
        SELECT p.id, ST_Y(p.anchor::geometry), ST_X(p.anchor::geometry), p.people, p.reporters, p.age_sum,
               p.male, p.female, p.last_activity,
               (SELECT count(*) FROM message m WHERE m.place_id = p.id AND NOT m.hidden)::integer
        FROM place p
        WHERE p.people > 0
          AND ST_DWithin(p.anchor, ST_SetSRID(ST_MakePoint(\(lon)::float8, \(lat)::float8), 4326)::geography, \(radius)::float8)
        """
    }

    /// Live places whose anchor is within `radius` metres (geodesic) of `centre`.
    public func nearby(_ centre: Coordinate, radius: Double) async throws -> [LivePlace] {
        try await decodePlaces(client.query(Self.nearbySQL(lat: centre.latitude, lon: centre.longitude, radius: radius), logger: logger))
    }

    /// A live place, or nil when unknown or empty.
    public func place(id: Int64) async throws -> LivePlace? {
        try await decodePlaces(client.query("""
            SELECT p.id, ST_Y(p.anchor::geometry), ST_X(p.anchor::geometry), p.people, p.reporters, p.age_sum,
                   p.male, p.female, p.last_activity,
                   (SELECT count(*) FROM message m WHERE m.place_id = p.id AND NOT m.hidden)::integer
            FROM place p WHERE p.id = \(id) AND p.people > 0
            """, logger: logger)).first
    }

    /// Whether the place exists at all (live or empty).
    public func exists(_ id: Int64) async throws -> Bool {
        for try await _ in try await client.query("SELECT 1 FROM place WHERE id = \(id)", logger: logger).decode(Int.self) {
            return true
        }
        return false
    }

    /// The newest `perPlace` visible messages of each place, in one query (newest first).
    public func latestMessages(perPlace: Int, of placeIDs: [Int64]) async throws -> [Int64: [Message]] {
        guard perPlace > 0, !placeIDs.isEmpty else { return [:] }
        var out: [Int64: [Message]] = [:]
        for try await (id, place, body, at) in try await client.query("""
            SELECT m.id, m.place_id, m.body, m.created_at
            FROM unnest(\(placeIDs)::bigint[]) AS p(id)
            CROSS JOIN LATERAL (
                SELECT id, place_id, body, created_at FROM message
                WHERE place_id = p.id AND NOT hidden ORDER BY id DESC LIMIT \(perPlace)
            ) m
            """, logger: logger).decode((Int64, Int64, String, Date).self)
        {
            out[place, default: []].append(Message(id: id, placeID: place, text: body, createdAt: at))
        }
        return out
    }

    private func decodePlaces(_ rows: PostgresRowSequence) async throws -> [LivePlace] {
        var out: [LivePlace] = []
        for try await (id, lat, lon, people, reporters, ageSum, male, female, last, messages) in rows.decode(
            (Int64, Double, Double, Int, Int, Int, Int, Int, Date, Int).self)
        {
            out.append(LivePlace(
                id: id, anchor: Coordinate(latitude: lat, longitude: lon),
                stats: PlaceStats(people: people, reporters: reporters, ageSum: ageSum, male: male, female: female),
                lastActivity: last, messageCount: messages))
        }
        return out
    }
}
