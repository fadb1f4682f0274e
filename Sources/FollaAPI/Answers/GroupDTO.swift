import FollaCore
import Foundation

/// One group as the answers show it, rounded for the wire: degrees to 1e-7 (about a
/// centimetre), metres and degrees of bearing to 1e-3.
///
/// `id` is null for a cell of small groups, `stats` null where withheld, `hull` null for a
/// single place; all three keys are always present. GeoJSON carries the hull as its own
/// feature, so its properties leave the `hull` key out (`encode(to:includeHull:)`).
package struct GroupDTO: Encodable, Sendable {
    package var id: Int64?
    package var lat: Double
    package var lon: Double
    package var coarsened: Bool
    package var distanceM: Double
    package var bearingDeg: Double
    package var people: Int
    package var stats: StatsDTO?
    package var lastActivity: Date
    package var messageCount: Int
    package var messages: [MessageDTO]
    package var placeIds: [Int64]
    /// [[lon, lat], …] as in GeoJSON, closed.
    package var hull: [[Double]]?
    /// The group's shared encodings when it is a ready group's copy (`Group.encodings`).
    package var encodings: EncodingMemo?

    package init(_ g: Group) {
        id = g.id
        lat = Self.round(g.position.latitude, 1e7)
        lon = Self.round(g.position.longitude, 1e7)
        coarsened = g.isCoarsened
        distanceM = Self.round(g.distance, 1000)
        bearingDeg = Self.round(g.bearing, 1000)
        people = g.people
        stats = g.stats.map(StatsDTO.init)
        lastActivity = g.lastActivity
        messageCount = g.messageCount
        messages = g.messages.map(MessageDTO.init)
        placeIds = g.memberPlaceIDs
        hull = g.hull?.map { [Self.round($0.longitude, 1e7), Self.round($0.latitude, 1e7)] }
        encodings = g.encodings
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
