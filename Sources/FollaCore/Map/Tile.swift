import Foundation

/// A map tile in the XYZ scheme (`/v1/tiles/{z}/{x}/{y}.mvt`): 2^z × 2^z tiles cover Web
/// Mercator, x from 180° W, y from the north.
public struct Tile: Sendable, Hashable {
    public var z: Int
    public var x: Int
    public var y: Int

    /// - Throws: a field error naming z, x or y when the tile does not exist.
    public init(z: Int, x: Int, y: Int) throws(FieldError) {
        guard (0...22).contains(z) else { throw FieldError("z", "must be between 0 and 22") }
        let n = 1 << z
        guard (0..<n).contains(x) else { throw FieldError("x", "must be between 0 and \(n - 1) at zoom \(z)") }
        guard (0..<n).contains(y) else { throw FieldError("y", "must be between 0 and \(n - 1) at zoom \(z)") }
        self.z = z
        self.x = x
        self.y = y
    }

    /// The tile's box, widened by `buffer` of its width on each side (points near an edge
    /// are drawn by both tiles), as a 512-pixel viewport at the tile's zoom.
    public func viewport(buffer: Double = 64.0 / 4096) -> Viewport {
        let n = Double(1 << z)
        func lon(_ x: Double) -> Double { x / n * 360 - 180 }
        func lat(_ y: Double) -> Double { atan(sinh(.pi * (1 - 2 * y / n))) * 180 / .pi }
        let west = max(lon(Double(x) - buffer), -180), east = min(lon(Double(x + 1) + buffer), 180)
        let north = lat(max(Double(y) - buffer, 0)), south = lat(min(Double(y + 1) + buffer, n))
        return Viewport(minLongitude: west, minLatitude: south, maxLongitude: east, maxLatitude: north, zoom: z, tileSize: 512)
    }
}
