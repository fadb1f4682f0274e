import Foundation

/// One cell of a privacy grid of side `metres` (``PrivacyPolicy/snap(_:metres:)``): its row
/// and column, its height and width in degrees, and its centre.
///
/// Cells are `metres` tall; their width in degrees of longitude follows the cell row's
/// centre latitude, so they stay near-square: the row's 360° cut into as many equal columns
/// as fit at least `metres` wide. The arithmetic lives here once, for `snap` and
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
        // A whole number of columns per row (SQL/0028): with the width `metres` asked for,
        // the row's last column, at the antimeridian, was what was left of 360°, anywhere
        // from 0 to 100 m wide (a thin wedge at a pole), and its centre, past 180°, named it:
        // a lone person in it was placed within that strip (outside probe, session 25: 6.5 m
        // off Fiji). Now every column of a row is as wide, and at least `metres`.
        let asked = min(360, metres / (metresPerDegree * max(cos(centreLatitude * .pi / 180), 1e-6)))
        let columns = max(1, (360 / asked).rounded(.down))
        lonStep = 360 / columns
        column = min(columns - 1, ((c.longitude + 180) / lonStep).rounded(.down))
    }

    /// The centre.
    public var centre: Coordinate {
        Coordinate(latitude: centreLatitude, longitude: Self.wrapped((column + 0.5) * lonStep - 180))
    }

    /// A longitude past 180° on the other side (no centre lies past it since SQL/0028; kept
    /// for points computed from a column and an offset).
    static func wrapped(_ lon: Double) -> Double { lon > 180 ? lon - 360 : lon }
}
