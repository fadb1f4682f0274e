import FollaCore
import Foundation

/// Geodesic lines from one centre to many points near it: the distance and initial bearing
/// that ``Geodesic/inverse(from:to:)`` gives, to well under a micrometre and a microdegree,
/// at a fraction of its cost.
///
/// Why by hand: a groups answer measures the line to every group it answers (about fifty in
/// a dense hotspot), and Karney's inverse (GeographicLib, in PROJ: ~0.5 µs a line) was ~12 %
/// of the server's CPU per answer. GeographicLib solves the general problem; for a few
/// kilometres the normal section of the ellipsoid through the centre and the point is the
/// geodesic far below the millimetre and the thousandth of a degree that answers show, and
/// it takes one chord and one arctangent:
/// - the chord is the difference of the two points' Earth-centred coordinates;
/// - the azimuth is the chord's direction in the centre's east–north plane (the normal
///   section's plane contains the centre's normal and the point);
/// - the arc follows from the chord and the section's radius of curvature (Euler's formula
///   from the meridian and prime-vertical radii): s = c (1 + c²/24R² + 3c⁴/640R⁴).
///
/// Beyond ``reach``, within a hundredth of a degree of a pole, or closer than a metre, the
/// exact solution is used. (The coordinates' rounding, ~1 nm, turns the azimuth of a chord
/// by a microdegree at ~6 cm; a metre keeps it well away from that, and the few groups that
/// close cost little exactly.)
public struct GeodesicFan: Sendable {
    /// What a groups answer needs of a line.
    public struct Ray: Sendable, Equatable {
        /// Metres along the geodesic.
        public var distance: Double
        /// Degrees clockwise from north at the centre, in [0, 360).
        public var initialBearing: Double

        public init(distance: Double, initialBearing: Double) {
            self.distance = distance
            self.initialBearing = initialBearing
        }
    }

    /// Lines longer than this (metres, as the chord) are solved exactly. At 20 km the arc's
    /// correction to the chord is ~8 mm, and what it neglects (the curvature's change along
    /// the line, the normal section against the geodesic) is under a micrometre.
    public static let reach = 20_000.0

    private let centre: Coordinate
    /// The centre's sine and cosine of latitude, and its Earth-centred coordinates in the
    /// frame turned to its meridian (x towards it, y east, z north).
    private let sinPhi: Double
    private let cosPhi: Double
    private let x: Double
    private let z: Double
    /// The centre's meridian (M) and prime-vertical (N) radii of curvature.
    private let meridianRadius: Double
    private let primeVerticalRadius: Double
    /// Near a pole every line is solved exactly.
    private let exactOnly: Bool

    /// - Parameter centre: where every line starts.
    public init(centre: Coordinate) {
        self.centre = centre
        let phi = centre.latitude * .pi / 180
        sinPhi = sin(phi)
        cosPhi = cos(phi)
        (meridianRadius, primeVerticalRadius) = Geodesic.wgs84Radii(sinLatitude: sinPhi)
        (x, z) = Self.inMeridianPlane(sinLatitude: sinPhi, cosLatitude: cosPhi)
        exactOnly = abs(centre.latitude) > 89.99
    }

    /// The line from the centre to `point`.
    ///
    /// Worked in the frame turned to the centre's meridian, from the difference of
    /// longitudes (exact for nearby points): two points mirrored across the meridian get
    /// the same distance to the last bit, as Karney's inverse gives them, so that ties
    /// stay ties (the answer orders them by position).
    public func ray(to point: Coordinate) -> Ray {
        guard !exactOnly else { return exact(point) }
        var dLon = point.longitude - centre.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let phi = point.latitude * .pi / 180, lambda = dLon * .pi / 180
        let (r, pz) = Self.inMeridianPlane(sinLatitude: sin(phi), cosLatitude: cos(phi))
        // The chord from the centre, and its east and north components there.
        let dx = r * cos(lambda) - x, dy = r * sin(lambda), dz = pz - z
        let chord2 = dx * dx + dy * dy + dz * dz
        guard chord2 >= 1, chord2 <= Self.reach * Self.reach else { return exact(point) }
        let east = dy, north = cosPhi * dz - sinPhi * dx
        // Euler: the normal section's radius along the azimuth whose cos² and sin² these are.
        let h2 = east * east + north * north
        let radius = meridianRadius * primeVerticalRadius
            / (primeVerticalRadius * (north * north / h2) + meridianRadius * (east * east / h2))
        let q = chord2 / (radius * radius)
        let distance = chord2.squareRoot() * (1 + q / 24 + 3 * q * q / 640)
        return Ray(distance: distance, initialBearing: Geodesic.normalizedBearing(atan2(east, north) * 180 / .pi))
    }

    /// A surface point's distance from the Earth's axis and height above the equator's plane
    /// (its Earth-centred coordinates in its own meridian's plane), in metres.
    private static func inMeridianPlane(sinLatitude s: Double, cosLatitude c: Double) -> (r: Double, z: Double) {
        let n = Geodesic.wgs84Radii(sinLatitude: s).primeVertical
        return (n * c, n * (1 - Geodesic.wgs84EccentricitySquared) * s)
    }

    private func exact(_ point: Coordinate) -> Ray {
        let line = Geodesic.wgs84.inverse(from: centre, to: point)
        return Ray(distance: line.distance, initialBearing: line.initialBearing)
    }
}
