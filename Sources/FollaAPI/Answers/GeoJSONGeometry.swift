/// An RFC 7946 geometry: a group's point, or a polygon with one ring (a cluster's hull, a
/// venue's area). Positions are `[lon, lat]`.
package enum GeoJSONGeometry: Encodable, Sendable {
    case point([Double])
    case polygon([[Double]])

    enum CodingKeys: String, CodingKey { case coordinates, type }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .point(let position):
            try c.encode(position, forKey: .coordinates)
            try c.encode("Point", forKey: .type)
        case .polygon(let ring):
            try c.encode([ring], forKey: .coordinates)
            try c.encode("Polygon", forKey: .type)
        }
    }
}
