import FollaCore
import Foundation
import PostgresNIO

/// The one shape of a message row, read by places, pages and walls alike: its columns, their
/// decoding by name, and the order every query sorts them in.
enum MessageRow {
    /// The columns `message(_:)` reads, unqualified (a query selects them from `message`).
    static let columns = "id, place_id, body, created_at"

    /// Newest first, as `Message.isNewer(than:)`: by minute, then by opaque id (the index
    /// `message_place_recent` of `SQL/0023` follows it).
    static let newestFirst = "created_at DESC, id DESC"

    /// A row of `columns`, by column name.
    static func message(_ row: PostgresRow) throws -> Message {
        let c = row.makeRandomAccess()
        return Message(id: try c["id"].decode(Int64.self), placeID: try c["place_id"].decode(Int64.self),
                       text: try c["body"].decode(String.self), createdAt: try c["created_at"].decode(Date.self))
    }
}
