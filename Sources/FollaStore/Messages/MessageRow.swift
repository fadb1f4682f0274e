import FollaCore
import Foundation
import PostgresNIO

/// The one shape of a message row, read by places, pages and walls alike: its columns and
/// their decoding by name, so that every message carries both its shown id and its order.
enum MessageRow {
    /// The columns `message(_:)` reads, unqualified (a query selects them from `message`).
    static let columns = "id, seq, place_id, body, created_at"

    /// A row of `columns`, by column name.
    static func message(_ row: PostgresRow) throws -> Message {
        let c = row.makeRandomAccess()
        return Message(id: try c["id"].decode(Int64.self), sequence: try c["seq"].decode(Int64.self),
                       placeID: try c["place_id"].decode(Int64.self), text: try c["body"].decode(String.self),
                       createdAt: try c["created_at"].decode(Date.self))
    }
}
