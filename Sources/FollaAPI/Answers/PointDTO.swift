import FollaCore

/// `{"lat", "lon"}`: the centre of a groups answer.
package struct PointDTO: Encodable, Sendable {
    package var lat: Double
    package var lon: Double

    package init(_ c: Coordinate) {
        lat = c.latitude
        lon = c.longitude
    }
}
