import FollaServices
import Foundation

/// A wall as JSON (`GET …/wall`, and the `snapshot` event of the wall's stream): counts,
/// the breakdown (null where withheld), the busiest spots and the newest messages.
package struct WallDocument: Encodable, Sendable {
    package var title: String
    package var updatedAt: Date
    package var people: Int
    package var places: Int
    package var stats: StatsDTO?
    package var busiest: [WallSpotDTO]
    package var messages: [MessageDTO]

    package init(_ w: WallSnapshot) {
        title = w.title
        updatedAt = w.updatedAt
        people = w.people
        places = w.places
        stats = w.stats.map(StatsDTO.init)
        busiest = w.busiest.map(WallSpotDTO.init)
        messages = w.messages.map(MessageDTO.init)
    }

    enum CodingKeys: String, CodingKey {
        case title, people, places, stats, busiest, messages
        case updatedAt = "updated_at"
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(busiest, forKey: .busiest)
        try c.encode(messages, forKey: .messages)
        try c.encode(people, forKey: .people)
        try c.encode(places, forKey: .places)
        try c.encodeOrNull(stats, forKey: .stats)
        try c.encode(title, forKey: .title)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}
