import FollaCore
import Foundation

/// One group as the answers show it, rounded for the wire: degrees to 1e-7 (about a
/// centimetre), metres and degrees of bearing to 1e-3.
///
/// `id` is null for a cell of small groups, `stats` null where withheld, `hull` null for a
/// single place; all three keys are always present. GeoJSON carries the hull as its own
/// feature, so its properties leave the `hull` key out (`encode(to:includeHull:)`).
package struct GroupDTO: Encodable, Sendable {
    /// The group as answered. Every member below is read from it, rounded, when a codec asks:
    /// a ready group's JSON takes only its distance, bearing and shared encodings
    /// (`EncodingMemo`), and building the whole view for each group answered was ~4 % of a
    /// dense groups answer by profile (session 32). Private: the view shows only what the
    /// answers carry (not the group's `sources`, never answered).
    private let group: Group

    package init(_ g: Group) {
        group = g
    }

    package var id: Int64? { group.id }
    package var lat: Double { Self.round(group.position.latitude, 1e7) }
    package var lon: Double { Self.round(group.position.longitude, 1e7) }
    package var coarsened: Bool { group.isCoarsened }
    package var distanceM: Double { Self.round(group.distance, 1000) }
    package var bearingDeg: Double { Self.round(group.bearing, 1000) }
    package var people: Int { group.people }
    package var stats: StatsDTO? { group.stats.map(StatsDTO.init) }
    package var lastActivity: Date { group.lastActivity }
    package var messageCount: Int { group.messageCount }
    /// Made on each read: read it once.
    package var messages: [MessageDTO] { group.messages.map(MessageDTO.init) }
    /// How many messages the group shows (without making their views).
    package var messagesShown: Int { group.messages.count }
    package var placeIds: [Int64] { group.memberPlaceIDs }
    /// [[lon, lat], …] as in GeoJSON, closed; made on each read.
    package var hull: [[Double]]? {
        group.hull?.map { [Self.round($0.longitude, 1e7), Self.round($0.latitude, 1e7)] }
    }
    /// `body`'s result with the group's shared encoding of `variant` when it is a ready
    /// group's copy (`Group.withEncoding`); nil when it has no encodings.
    package func withEncoding<R>(_ variant: Int, make: () -> [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        group.withEncoding(variant, make: make, body)
    }

    package static func round(_ v: Double, _ scale: Double) -> Double { (v * scale).rounded() / scale }

    enum CodingKeys: String, CodingKey {
        case id, lat, lon, coarsened, people, stats, messages, hull
        case distanceM = "distance_m"
        case bearingDeg = "bearing_deg"
        case lastActivity = "last_activity"
        case messageCount = "message_count"
        case placeIds = "place_ids"
    }

    package func encode(to encoder: any Encoder) throws {
        try encode(to: encoder, includeHull: true)
    }

    func encode(to encoder: any Encoder, includeHull: Bool) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(bearingDeg, forKey: .bearingDeg)
        try c.encode(coarsened, forKey: .coarsened)
        try c.encode(distanceM, forKey: .distanceM)
        if includeHull { try c.encodeOrNull(hull, forKey: .hull) }
        try c.encodeOrNull(id, forKey: .id)
        try c.encode(lastActivity, forKey: .lastActivity)
        try c.encode(lat, forKey: .lat)
        try c.encode(lon, forKey: .lon)
        try c.encode(messageCount, forKey: .messageCount)
        try c.encode(messages, forKey: .messages)
        try c.encode(people, forKey: .people)
        try c.encode(placeIds, forKey: .placeIds)
        try c.encodeOrNull(stats, forKey: .stats)
    }
}
