import Crypto
import FollaCore
import Foundation
import Logging
import PostgresNIO

/// Messages: posting to the device's real place, paging, reports and admin hiding.
public struct MessageStore: Sendable {
    /// Read for every statement: the pool is renewed after an outage.
    public var client: PostgresClient { pool.client }
    public let pool: DatabasePool
    public let keyer: DeviceKeyer
    public let presenceTTL: TimeInterval
    let logger: Logger

    public init(pool: DatabasePool, keyer: DeviceKeyer, presenceTTL: TimeInterval, logger: Logger) {
        self.pool = pool
        self.keyer = keyer
        self.presenceTTL = presenceTTL
        self.logger = logger
    }

    /// Posts `text` where the device is now; nil when it is not in a live place. Throws
    /// `CheckInRefusal.notEstablished` for a device that does not count yet.
    public func post(_ text: MessageText, by device: DeviceID, at now: Date) async throws -> Message? {
        let key = ByteBuffer(bytes: keyer.key(for: device))
        let rows = try await PresenceStore.translatingRefusals {
            try await client.committed("""
                SELECT message_id, place_id FROM folla_post_message(\(key)::bytea, \(text.text)::text, \(now)::timestamptz,
                    \(presenceTTL)::float8)
                """, logger: logger)
        }
        guard let row = rows.first else { return nil }
        let (id, place) = try row.decode((Int64?, Int64?).self)
        guard let id, let place else { return nil }
        return Message(id: id, placeID: place, text: text.text, createdAt: now.floored(toMultipleOf: 60))  // as stored
    }

    public enum ReportOutcome: String, Sendable { case unknown, duplicate, reported, hidden, untrusted }

    /// - Parameter requireEstablished: count the report only from an established device
    ///   (`untrusted` otherwise), so that invented ids cannot hide messages.
    public func report(_ messageID: Int64, by device: DeviceID, threshold: Int, at now: Date,
                       requireEstablished: Bool = false) async throws -> ReportOutcome {
        let key = ByteBuffer(bytes: keyer.key(for: device, scope: "report:\(messageID)"))
        let deviceKey = requireEstablished ? ByteBuffer(bytes: keyer.key(for: device)) : nil
        let rows = try await client.committed("""
            SELECT folla_report_message(\(messageID), \(key)::bytea, \(threshold)::integer, \(now)::timestamptz, \(deviceKey)::bytea)
            """, logger: logger)
        guard let row = rows.first else { return .unknown }
        return ReportOutcome(rawValue: try row.decode(String.self)) ?? .unknown
    }

    /// The place of a message that is not hidden; nil when there is no such message.
    public func placeID(of messageID: Int64) async throws -> Int64? {
        try await client.rows("SELECT place_id FROM message WHERE id = \(messageID) AND NOT hidden", logger: logger)
            .first?.decode(Int64.self)
    }

    /// Admin hide/unhide; false when the message does not exist. Either way a held message
    /// (`SQL/0026`) is held no longer: hidden, it stays hidden; shown, it shows now.
    public func setHidden(_ messageID: Int64, _ hidden: Bool) async throws -> Bool {
        try await !client.committed(
            "UPDATE message SET hidden = \(hidden), held = false WHERE id = \(messageID) RETURNING id", logger: logger).isEmpty
    }

    /// A place's visible messages, newest first (`MessageRow.newestFirst`), after `before`
    /// in that order when given (a message of the place: see `message(_:in:)`).
    public func page(place: Int64, before: Message?, limit: Int) async throws -> [Message] {
        try await client.rows("""
            SELECT \(unescaped: MessageRow.columns) FROM message
            WHERE place_id = \(place) AND NOT hidden
              AND (\(before?.id)::bigint IS NULL OR (created_at, id) < (\(before?.createdAt)::timestamptz, \(before?.id)::bigint))
            ORDER BY \(unescaped: MessageRow.newestFirst) LIMIT \(limit)
            """, logger: logger).map(MessageRow.message)
    }

    /// The message shown as `id` in `place` (a page's cursor), hidden or not: a page read
    /// before a message was hidden goes on from it. Nil when the place has no such message,
    /// or none yet: a held one (`SQL/0026`) was never on a page, and its poster, who knows
    /// its id, would learn from it which place took it before anyone may read that.
    public func message(_ id: Int64, in place: Int64) async throws -> Message? {
        try await client.rows("""
            SELECT \(unescaped: MessageRow.columns) FROM message WHERE id = \(id) AND place_id = \(place) AND NOT held
            """, logger: logger).first.map(MessageRow.message)
    }
}
