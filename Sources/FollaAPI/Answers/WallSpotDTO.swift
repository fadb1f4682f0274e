import FollaServices

/// One of a wall's busiest spots: `place_id` null and `stats` null for a cell of small
/// groups; positions rounded like groups (1e-7 degrees).
package struct WallSpotDTO: Encodable, Sendable {
    package var placeId: Int64?
    package var people: Int
    package var lat: Double
    package var lon: Double
    package var coarsened: Bool
    package var stats: StatsDTO?

    package init(_ s: WallSnapshot.Spot) {
        placeId = s.placeID
        people = s.people
        lat = GroupDTO.round(s.position.latitude, 1e7)
        lon = GroupDTO.round(s.position.longitude, 1e7)
        coarsened = s.coarsened
        stats = s.stats.map(StatsDTO.init)
    }

    enum CodingKeys: String, CodingKey {
        case people, lat, lon, coarsened, stats
        case placeId = "place_id"
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(coarsened, forKey: .coarsened)
        try c.encode(lat, forKey: .lat)
        try c.encode(lon, forKey: .lon)
        try c.encode(people, forKey: .people)
        try c.encodeOrNull(placeId, forKey: .placeId)
        try c.encodeOrNull(stats, forKey: .stats)
    }
}
