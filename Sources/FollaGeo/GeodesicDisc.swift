import Foundation

/// A cheap, conservative test of "within `radius` metres of `centre`": it never says no to a
/// point whose geodesic distance is within the radius, and says yes to few others; and
/// bounds on the distance of the points it holds, to sort by distance without measuring each.
///
/// Why: a groups answer looked at every place in a box of grid cells several times the
/// area of its circle, and measured each with Karney's inverse (about 0.6 µs); in a dense
/// evening that was a quarter of the server's CPU. This disc rejects most of them with a
/// few multiplications, and only what it keeps is measured exactly.
///
/// How: a local plane with the ellipsoid's meridional and prime-vertical scales at the
/// centre's latitude. Its distance is off mostly by the east scale's change across the disc:
/// relatively about Δφ·tan φ, with Δφ the disc's reach in radians. Each disc is widened by
/// that error, its own (`relativeError`: a 300 m disc at Bologna's latitude is off by at most
/// ~1e-5, measured against Karney's inverse, and widened by 5e-5), so that the bounds are
/// narrow enough to order most groups without measuring them; a wide disc near a pole is
/// widened by at most `tolerance` (the plane's worst error in its domain, 20 km at 80°, is
/// 0.4 %). Outside that domain it keeps everything.
/// (Written here because PROJ and GEOS have no bound, only exact measures.)
public struct GeodesicDisc: Sendable {
    /// The widest radius the plane serves, metres; larger discs keep every point.
    public static let maximumRadius = 20_000.0
    /// The highest latitude (either hemisphere) the plane serves; nearer a pole, every point is kept.
    public static let maximumLatitude = 80.0
    /// The most a disc is widened, relatively: well above the plane's worst error in its domain.
    public static let tolerance = 0.05
    /// Absolute widening, metres: covers rounding near the centre, where relative errors mean nothing.
    public static let slack = 0.01

    public let centre: Coordinate
    public let radius: Double
    /// Metres per degree of latitude and of longitude at the centre; nil outside the domain.
    private let scale: (north: Double, east: Double)?
    /// How much this disc's plane distance may be off, relatively, for any point up to its
    /// `limit` (at most `tolerance`).
    public let relativeError: Double
    private let limit: Double

    /// - Parameters:
    ///   - centre: the disc's centre.
    ///   - radius: geodesic metres.
    public init(centre: Coordinate, radius: Double) {
        self.centre = centre
        self.radius = radius
        guard radius <= Self.maximumRadius, abs(centre.latitude) <= Self.maximumLatitude else {
            scale = nil
            relativeError = Self.tolerance
            limit = radius * (1 + Self.tolerance) + Self.slack
            return
        }
        // The first-order error, Δφ·tan φ at the farthest latitude the disc reaches (with the
        // tolerance's widening), taken 4.5 times over: Karney's inverse against the plane,
        // sampled from 15 m to 20 km and from the equator to 80°, is off by 0.22 of it at most.
        // The second-order term (Δφ² and the meridians' convergence) dominates only at the
        // equator; it too is well above what was measured there (6e-7 at 20 km).
        let reach = radius * (1 + Self.tolerance) / 6_300_000
        let farthest = min(abs(centre.latitude) * .pi / 180 + reach, 81 * Double.pi / 180)
        relativeError = min(Self.tolerance, reach * tan(farthest) + 10 * reach * reach + 1e-9)
        limit = radius * (1 + relativeError) + Self.slack
        let phi = centre.latitude * .pi / 180
        let radii = Geodesic.wgs84Radii(sinLatitude: sin(phi))
        scale = (radii.meridian * .pi / 180, radii.primeVertical * cos(phi) * .pi / 180)
    }

    /// False only for points certainly farther than `radius` from the centre.
    public func mayContain(_ c: Coordinate) -> Bool {
        guard let p = planarDistance(to: c) else { return true }
        return p <= limit
    }

    /// An interval certainly holding the geodesic distance from the centre to `c`; nil outside
    /// the plane's domain and for points the disc does not hold (the bound is proven only there).
    public func distanceBounds(to c: Coordinate) -> ClosedRange<Double>? {
        guard let p = planarDistance(to: c), p <= limit else { return nil }
        return max(0, (p - Self.slack) / (1 + relativeError))...((p + Self.slack) / (1 - relativeError))
    }

    /// A distance no point of a box of latitudes and longitudes (not crossing the
    /// antimeridian) is nearer than: 0 outside the plane's domain, infinity when the whole box
    /// is certainly beyond the radius. A grid of boxes is skipped a box at a time with it.
    public func distanceLowerBound(toLatitudes latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>) -> Double {
        // The plane's metric is separable: the box's nearest point has the centre's latitude
        // and longitude, each clamped into the box.
        let nearest = Coordinate(latitude: min(max(centre.latitude, latitudes.lowerBound), latitudes.upperBound),
                                 longitude: min(max(centre.longitude, longitudes.lowerBound), longitudes.upperBound))
        return lowerBound(planar: planarDistance(to: nearest))
    }

    /// A distance every point outside a box that holds the centre is at least as far as: 0
    /// outside the plane's domain, infinity when all of them are certainly beyond the radius.
    /// A walk outward over a grid stops with it once it has found enough nearer points.
    public func distanceLowerBound(outsideLatitudes latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>) -> Double {
        guard let scale else { return 0 }
        // A point outside the box is beyond one of its sides: at least the nearest side away.
        let north = min(centre.latitude - latitudes.lowerBound, latitudes.upperBound - centre.latitude) * scale.north
        let east = min(centre.longitude - longitudes.lowerBound, longitudes.upperBound - centre.longitude) * scale.east
        return lowerBound(planar: max(0, min(north, east)))
    }

    /// A lower bound on the geodesic distance of every point at least `planar` metres away in
    /// the plane. Where the plane's distance is within the disc the bound is proven (as in
    /// `distanceBounds`); a point beyond it is farther than the radius, which the bound never
    /// exceeds.
    private func lowerBound(planar: Double?) -> Double {
        guard let planar else { return 0 }
        if planar > limit { return .infinity }
        return max(0, (planar - Self.slack) / (1 + relativeError))
    }

    private func planarDistance(to c: Coordinate) -> Double? {
        guard let scale else { return nil }
        var dLon = c.longitude - centre.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let north = (c.latitude - centre.latitude) * scale.north
        let east = dLon * scale.east
        return (north * north + east * east).squareRoot()
    }
}
