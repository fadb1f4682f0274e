import FollaCore

/// The place a check-in went to, in the original's answer only (k = 1): its exact anchor,
/// its count and its breakdown.
package struct CheckInPlaceDTO: Encodable, Sendable {
    package var id: Int64
    package var lat: Double
    package var lon: Double
    package var people: Int
    package var stats: StatsDTO?

    package init(_ place: PlaceSnapshot, privacy: PrivacyPolicy) {
        id = place.id
        lat = place.anchor.latitude
        lon = place.anchor.longitude
        people = place.stats.people
        stats = privacy.stats(place.stats, mix: 0).map(StatsDTO.init)
    }

    enum CodingKeys: String, CodingKey { case coarsened, id, lat, lon, people, stats }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(false, forKey: .coarsened)
        try c.encode(id, forKey: .id)
        try c.encode(lat, forKey: .lat)
        try c.encode(lon, forKey: .lon)
        try c.encode(people, forKey: .people)
        try c.encodeOrNull(stats, forKey: .stats)
    }
}
