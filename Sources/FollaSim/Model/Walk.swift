import FollaCore
import FollaGeo

/// A walk between two points along the geodesic at a constant speed.
public struct Walk: Sendable, Equatable {
    public let from: Coordinate
    public let to: Coordinate
    public let start: Double
    public let speed: Double
    public let azimuth: Double
    public let length: Double

    public init(from: Coordinate, to: Coordinate, start: Double, speed: Double) {
        self.from = from
        self.to = to
        self.start = start
        self.speed = speed
        let line = Geodesic.wgs84.inverse(from: from, to: to)
        azimuth = line.initialBearing
        length = line.distance
    }

    public var end: Double { start + length / speed }

    /// Where the walker is at time `t` (seconds since the run began).
    public func position(at t: Double) -> Coordinate {
        let travelled = min(max(0, (t - start) * speed), length)
        if travelled >= length { return to }
        if travelled <= 0 { return from }
        return Geodesic.wgs84.destination(from: from, bearing: azimuth, distance: travelled)
    }
}
