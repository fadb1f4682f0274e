import FollaCore
import Foundation
import Logging
import PostgresNIO

/// Per-device counters over fixed windows, kept in PostgreSQL so that every instance behind
/// a balancer enforces one limit: a device alternating between instances gets no more than
/// it would from one (with counters in each process, n instances allowed n times the limit).
///
/// Rows are keyed by an HMAC of the device id scoped to the kind ("rate:messages"), which
/// cannot be joined to the device table or to the other kind; they hold a count and the end
/// of a window on one global grid, never an event's own time, so they cannot be joined to a
/// device's last ping or a message's minute either (SQL/0011).
public struct DeviceRates: Sendable {
    /// What is counted; the SQL table accepts exactly these.
    public enum Kind: String, Sendable, CaseIterable {
        case messages, reports
    }

    public let pool: DatabasePool
    public let keyer: DeviceKeyer
    let logger: Logger

    public init(pool: DatabasePool, keyer: DeviceKeyer, logger: Logger) {
        self.pool = pool
        self.keyer = keyer
        self.logger = logger
    }

    /// Records one event of `kind` for `device` at `now`, unless `limit` events were already
    /// counted in the current window (windows of `window` seconds, aligned to the epoch).
    /// - Returns: nil when recorded; otherwise the seconds until the window ends (at least
    ///   1), and nothing is recorded.
    public func acquire(_ kind: Kind, device: DeviceID, limit: Int, window: TimeInterval, at now: Date) async throws -> TimeInterval? {
        let key = ByteBuffer(bytes: keyer.key(for: device, scope: "rate:\(kind.rawValue)"))
        // One statement, so one implicit transaction: the count and the event commit together.
        let rows = try await pool.client.rows("""
            SELECT folla_rate(\(kind.rawValue)::text, \(key)::bytea, \(limit)::integer, \(window)::float8, \(now)::timestamptz)
            """, logger: logger)
        return try rows.first?.decode(Double?.self)
    }

    /// Drops the counters whose window has ended; returns how many.
    @discardableResult
    public func expire(at now: Date) async throws -> Int {
        let rows = try await pool.client.rows("""
            WITH gone AS (DELETE FROM device_rate WHERE ends_at <= \(now)::timestamptz RETURNING 1)
            SELECT count(*)::integer FROM gone
            """, logger: logger)
        return try rows.first?.decode(Int.self) ?? 0
    }
}
