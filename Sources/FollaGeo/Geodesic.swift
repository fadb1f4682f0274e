import CPROJ

/// Geodesics on the WGS84 ellipsoid through PROJ's `geod_*` functions (Karney's
/// algorithms, accurate to nanometres and identical to GeographicLib).
///
/// The original system measured distance on a polar stereographic plane (EPSG:32661),
/// which overstates distances by about 17 % at Bologna's latitude; every distance Folla
/// reports goes through here or through PostGIS geography, both geodesic.
///
/// `geod_geodesic` is immutable after `geod_init`, so a `Geodesic` value is safe to share.
public struct Geodesic: Sendable {
    /// WGS84 semi-major axis in metres.
    public static let wgs84SemiMajorAxis = 6_378_137.0
    /// WGS84 flattening.
    public static let wgs84Flattening = 1.0 / 298.257223563

    public static let wgs84 = Geodesic(semiMajorAxis: wgs84SemiMajorAxis, flattening: wgs84Flattening)

    /// WGS84 first eccentricity squared, f (2 − f).
    public static let wgs84EccentricitySquared = wgs84Flattening * (2 - wgs84Flattening)

    /// The WGS84 radii of curvature at a latitude, in metres: along the meridian (M) and
    /// across it, in the prime vertical (N), whose ratio fixes how far a degree goes there.
    /// - Parameter sinLatitude: the sine of the latitude.
    public static func wgs84Radii(sinLatitude s: Double) -> (meridian: Double, primeVertical: Double) {
        let w = 1 - wgs84EccentricitySquared * s * s
        return (wgs84SemiMajorAxis * (1 - wgs84EccentricitySquared) / (w * w.squareRoot()), wgs84SemiMajorAxis / w.squareRoot())
    }

    private let ellipsoid: geod_geodesic

    public init(semiMajorAxis: Double, flattening: Double) {
        var g = geod_geodesic()
        geod_init(&g, semiMajorAxis, flattening)
        self.ellipsoid = g
    }

    /// The inverse problem: distance and azimuths between two points.
    public func inverse(from a: Coordinate, to b: Coordinate) -> GeodesicLine {
        var s12 = 0.0, azi1 = 0.0, azi2 = 0.0
        withUnsafePointer(to: ellipsoid) { g in
            geod_inverse(g, a.latitude, a.longitude, b.latitude, b.longitude, &s12, &azi1, &azi2)
        }
        return GeodesicLine(
            distance: s12,
            initialBearing: Self.normalizedBearing(azi1),
            finalBearing: Self.normalizedBearing(azi2)
        )
    }

    /// Geodesic distance in metres.
    public func distance(from a: Coordinate, to b: Coordinate) -> Double {
        inverse(from: a, to: b).distance
    }

    /// The direct problem: where you arrive walking `distance` metres from `start`
    /// with initial bearing `bearing` (degrees clockwise from north).
    public func destination(from start: Coordinate, bearing: Double, distance: Double) -> Coordinate {
        var lat2 = 0.0, lon2 = 0.0, azi2 = 0.0
        withUnsafePointer(to: ellipsoid) { g in
            geod_direct(g, start.latitude, start.longitude, bearing, distance, &lat2, &lon2, &azi2)
        }
        return Coordinate(latitude: lat2, longitude: Self.normalizedLongitude(lon2))
    }

    /// Bearings in [0, 360): what a compass shows, rather than PROJ's (-180, 180].
    /// An azimuth in [0, 360): never -0 (a point due north of the centre, or the centre
    /// itself, read `-0.0` in answers) and never 360 (a tiny negative azimuth plus 360).
    static func normalizedBearing(_ azimuth: Double) -> Double {
        let b = azimuth.truncatingRemainder(dividingBy: 360)
        let shifted = b < 0 ? b + 360 : b
        return shifted >= 360 ? 0 : shifted + 0  // + 0 turns -0 into 0
    }

    static func normalizedLongitude(_ lon: Double) -> Double {
        var l = lon.truncatingRemainder(dividingBy: 360)
        if l > 180 { l -= 360 }
        if l < -180 { l += 360 }
        return l
    }
}

/// The answer to the inverse geodesic problem.
public struct GeodesicLine: Hashable, Sendable {
    /// Metres along the ellipsoid.
    public var distance: Double
    /// Azimuth at the start, degrees clockwise from north in [0, 360).
    public var initialBearing: Double
    /// Azimuth at the end (forward direction), degrees in [0, 360).
    public var finalBearing: Double
}
