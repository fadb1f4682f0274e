import FollaCore
import Foundation

/// The groups answer in its JSON shape (snake_case, ISO 8601 UTC). The XML and GeoJSON
/// codecs render the same values, so every format carries the same groups.
struct GroupsDocument: Encodable {
    var centre: PointDTO
    var radiusM: Double
    var count: Int
    var groups: [GroupDTO]

    init(query: GroupQuery, groups: [Group]) {
        centre = PointDTO(query.centre)
        radiusM = query.radius
        count = groups.count
        self.groups = groups.map(GroupDTO.init)
    }
}

struct PointDTO: Encodable {
    var lat: Double
    var lon: Double
    init(_ c: Coordinate) {
        lat = c.latitude
        lon = c.longitude
    }
}

struct StatsDTO: Encodable {
    var reported: Int
    var avgAge: Double?
    var male: Int
    var female: Int

    init(_ s: PlaceStats) {
        reported = s.reporters
        avgAge = s.averageAge.map { ($0 * 10).rounded() / 10 }
        male = s.male
        female = s.female
    }

    enum CodingKeys: String, CodingKey { case reported, avgAge, male, female }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(reported, forKey: .reported)
        try c.encode(avgAge, forKey: .avgAge)
        try c.encode(male, forKey: .male)
        try c.encode(female, forKey: .female)
    }
}

struct MessageDTO: Encodable {
    var id: Int64
    var placeId: Int64
    var text: String
    var createdAt: Date
    init(_ m: Message) {
        id = m.id
        placeId = m.placeID
        text = m.text
        createdAt = m.createdAt
    }
}

struct GroupDTO: Encodable {
    var id: Int64
    var lat: Double
    var lon: Double
    var coarsened: Bool
    var distanceM: Double
    var bearingDeg: Double
    var people: Int
    var stats: StatsDTO?
    var lastActivity: Date
    var messageCount: Int
    var messages: [MessageDTO]
    var placeIds: [Int64]
    /// [[lon, lat], …] as in GeoJSON, closed.
    var hull: [[Double]]?

    init(_ g: Group) {
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
    }

    static func round(_ v: Double, _ scale: Double) -> Double { (v * scale).rounded() / scale }

    enum CodingKeys: String, CodingKey {
        case id, lat, lon, coarsened, distanceM, bearingDeg, people, stats, lastActivity, messageCount, messages, placeIds, hull
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(lat, forKey: .lat)
        try c.encode(lon, forKey: .lon)
        try c.encode(coarsened, forKey: .coarsened)
        try c.encode(distanceM, forKey: .distanceM)
        try c.encode(bearingDeg, forKey: .bearingDeg)
        try c.encode(people, forKey: .people)
        try c.encode(stats, forKey: .stats)
        try c.encode(lastActivity, forKey: .lastActivity)
        try c.encode(messageCount, forKey: .messageCount)
        try c.encode(messages, forKey: .messages)
        try c.encode(placeIds, forKey: .placeIds)
        try c.encode(hull, forKey: .hull)
    }
}

enum APIJSON {
    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.keyEncodingStrategy = .convertToSnakeCase
        e.dateEncodingStrategy = .iso8601
        e.outputFormatting = [.withoutEscapingSlashes]
        return e
    }

    static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }
}
