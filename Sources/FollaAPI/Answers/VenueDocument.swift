import FollaCore

/// A venue as saved (`POST`/`PUT /v1/admin/venues…`): its slug, name, area as a GeoJSON
/// Polygon (full precision: the ring as stored, circles included) and its wall page.
struct VenueDocument: Encodable, Sendable {
    var slug: String
    var name: String
    var area: GeoJSONGeometry
    var wall: String

    init(_ v: VenueDefinition) {
        slug = v.slug
        name = v.name
        area = .polygon(v.ring.map { [$0.longitude, $0.latitude] })
        wall = "/wall/\(v.slug)"
    }
}
