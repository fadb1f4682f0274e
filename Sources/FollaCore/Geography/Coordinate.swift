/// A position on the WGS84 ellipsoid, in degrees.
///
/// Kept as a plain value so it can cross threads and tasks freely; the C contexts that
/// compute with it (PROJ, GEOS) live in their own non-`Sendable` owners.
public struct Coordinate: Hashable, Sendable, CustomStringConvertible {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True when both components are finite and inside the WGS84 ranges.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite
            && (-90.0...90.0).contains(latitude) && (-180.0...180.0).contains(longitude)
    }

    public var description: String { "(\(latitude), \(longitude))" }
}

/// A point in a local metric plane (metres east and north of a projection centre).
public struct PlanarPoint: Hashable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public func distance(to other: PlanarPoint) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }
}
