import FollaCore
import Foundation
import Logging
import PostgresNIO

/// Messages held until their minute has ended (`SQL/0026`): while holding is on, a new
/// message is stored hidden, and `show(before:)` (the sweeper) shows those of the minutes
/// that have ended. So a message appears at a sweep after its minute turns, whenever in the
/// minute it was posted: shown at once, it appeared within a second of its post, and timed
/// beside the place's count going up at the same read it named its author among the people
/// just arrived.
public struct HeldMessages: Sendable {
    public let pool: DatabasePool
    let logger: Logger

    public init(pool: DatabasePool, logger: Logger) {
        self.pool = pool
        self.logger = logger
    }

    /// Turns holding on or off for every message stored from now on, and stores k, from
    /// which the minute's showing computes a place's activity (`SQL/0030`). A server sets
    /// both once its migrations have run; every instance on one database must agree on them.
    /// - Parameters:
    ///   - privacy: the policy: holding (`PrivacyPolicy.holdsMessages`) and k.
    ///   - connection: where (the server's migrating connection).
    public static func hold(for privacy: PrivacyPolicy, on connection: PostgresConnection, logger: Logger) async throws {
        _ = try await connection.query("UPDATE message_hold SET held = \(privacy.holdsMessages), public_from = \(privacy.k)",
                                       logger: logger).collect()
    }

    /// `hold(for:on:logger:)` through a client (tests).
    public static func hold(for privacy: PrivacyPolicy, on client: PostgresClient, logger: Logger) async throws {
        try await client.withConnection { try await hold(for: privacy, on: $0, logger: logger) }
    }

    /// Shows the held messages stored before `minute` (a whole minute: the minutes that
    /// have ended). Each is announced as any message shown (walls drop their cache, streams
    /// wake, the read models see its place change).
    /// - Returns: how many were shown.
    @discardableResult
    public func show(before minute: Date) async throws -> Int {
        try await pool.client.committed("SELECT folla_show_held(\(minute)::timestamptz)", logger: logger)
            .first?.decode(Int.self) ?? 0
    }
}
