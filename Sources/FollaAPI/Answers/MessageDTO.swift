import FollaCore
import Foundation

/// One message as every answer shows it (groups, places, pages, walls, the wall's event
/// stream): `place_id` is null where the place is not public (in the poster's own answer at
/// k > 1; a small group's messages are not shown at all).
package struct MessageDTO: Encodable, Sendable {
    package var id: Int64
    package var placeId: Int64?
    package var text: String
    package var createdAt: Date

    package init(_ m: Message) {
        id = m.id
        placeId = m.placeID
        text = m.text
        createdAt = m.createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, text
        case placeId = "place_id"
        case createdAt = "created_at"
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(id, forKey: .id)
        try c.encodeOrNull(placeId, forKey: .placeId)
        try c.encode(text, forKey: .text)
    }
}
