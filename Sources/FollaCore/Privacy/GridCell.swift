import Foundation

/// One cell of a privacy grid of side `metres` (``PrivacyPolicy/snap(_:metres:)``): its row
/// and column, its height and width in degrees, and its centre.
///
/// Cells are `metres` tall; their width in degrees of longitude follows the cell row's
/// centre latitude, so they stay near-square. The arithmetic lives here once, for `snap` and
/// for `anchor(of:grids:)`; SQL's `folla_snap` and `folla_anchor` repeat it operation for
/// operation (JoinPrivacyTests holds them equal to the bit).
public struct GridCell: Sendable {
    public let row: Double
    public let column: Double
    /// Height in degrees of latitude.
    public let latStep: Double
    /// Width in degrees of longitude.
    public let lonStep: Double
    /// The centre's latitude (clamped to the poles).
    public let centreLatitude: Double

    /// - Parameters:
    ///   - c: any point of the cell.
    ///   - metres: the grid's side.
    public init(holding c: Coordinate, metres: Double) {
        let metresPerDegree = 111_320.0
        latStep = metres / metresPerDegree
        row = (c.latitude / latStep).rounded(.down)
        centreLatitude = min(90, max(-90, (row + 0.5) * latStep))
        lonStep = min(360, metres / (metresPerDegree * max(cos(centreLatitude * .pi / 180), 1e-6)))
        column = ((c.longitude + 180) / lonStep).rounded(.down)
    }

    /// The centre.
    public var centre: Coordinate {
        Coordinate(latitude: centreLatitude, longitude: Self.wrapped((column + 0.5) * lonStep - 180))
    }

    /// A longitude past 180° (the last column's centre, which may lie beyond the edge) on the other side.
    static func wrapped(_ lon: Double) -> Double { lon > 180 ? lon - 360 : lon }
}
