import FollaCore
import Foundation

/// The groups answer as plain values, rounded for the wire, shared by the JSON, XML and
/// GeoJSON codecs so that every format carries exactly the same groups.
struct GroupsDocument {
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

struct PointDTO {
    var lat: Double
    var lon: Double
    init(_ c: Coordinate) {
        lat = c.latitude
        lon = c.longitude
    }
}

struct StatsDTO {
    var reported: Int
    var avgAge: Double?
    var male: Int
    var female: Int

    init(_ s: PublishedStats) {
        reported = s.reported
        avgAge = s.averageAge
        male = s.male
        female = s.female
    }
}

struct MessageDTO {
    var id: Int64
    /// nil for a small group's message (it names no place).
    var placeId: Int64?
    var text: String
    var createdAt: Date
    init(_ m: Message) {
        id = m.id
        placeId = m.placeID
        text = m.text
        createdAt = m.createdAt
    }
}

struct GroupDTO {
    /// nil for a cell of small groups.
    var id: Int64?
    /// Degrees to 1e-7 (about a centimetre).
    var lat: Double
    var lon: Double
    var coarsened: Bool
    /// Millimetres.
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
}
