import FollaCore
import Foundation
import Testing

/// Every column of a grid row is whole, the last one at the antimeridian too. Before, the
/// last was what was left of 360° (0–100 m wide; a wedge at a pole), and its centre, past
/// 180°, named it: an outside probe (session 25) placed a lone person off Fiji within the
/// 6.5 m strip it left.
@Suite struct GridCellTests {
    @Test(arguments: [-89.9996, -60.123, -16.737, 0.0004, 44.4938, 78.9, 89.9999])
    func theLastColumnIsWhole(latitude: Double) {
        for metres in [100.0, 10.0] {
            let last = GridCell(holding: Coordinate(latitude: latitude, longitude: 179.99997), metres: metres)
            let first = GridCell(holding: Coordinate(latitude: latitude, longitude: -180), metres: metres)
            // The last column runs to 180° exactly, as wide as the others, and no narrower
            // than the grid's side (measured along the row's centre).
            let width = 360 - last.column * last.lonStep
            #expect(abs(width - last.lonStep) < 1e-9, "last column \(width)° of \(last.lonStep)° at \(latitude)")
            #expect(last.lonStep == first.lonStep)
            let metresWide = last.lonStep * 111_320 * cos(last.centreLatitude * .pi / 180)
            #expect(metresWide >= metres * (1 - 1e-9) || last.lonStep == 360, "\(metresWide) m at \(latitude)")
            // Its centre lies within the world, half a column from its edge.
            #expect(last.centre.longitude < 180 && abs(last.centre.longitude - (180 - last.lonStep / 2)) < 1e-9)
        }
    }
}
