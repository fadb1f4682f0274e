import FollaCore
import PostgresNIO

extension VenueStore {
    /// A venue's name and the centre of its area: the centroid on the spheroid
    /// (PostGIS `ST_Centroid(geography)`), which for a venue made from a centre and a radius
    /// is that centre. The wall page says where the busiest spots are from here ("35 m
    /// north-east of the centre"); the wall's own JSON stays as it is. nil: no such venue.
    public func nameAndCentre(of slug: String) async throws -> (name: String, centre: Coordinate)? {
        let rows = try await client.rows("""
            SELECT name, ST_Y(c::geometry), ST_X(c::geometry) FROM (SELECT name, ST_Centroid(area) AS c FROM venue WHERE slug = \(slug)) v
            """, logger: logger)
        guard let (name, lat, lon) = try rows.first?.decode((String, Double, Double).self) else { return nil }
        return (name, Coordinate(latitude: lat, longitude: lon))
    }
}
