import FollaCore
import FollaGeo
@testable import FollaSim
import Testing

/// The privacy cost's "shown within 20 m" count, taken through a spatial index, agrees with
/// measuring every group against every phone.
@Suite struct PrivacyCostTests {
    @Test func theIndexedCountIsTheExhaustiveOne() throws {
        var random = SeededRandom(seed: 7)
        let centre = Coordinate(latitude: 44.4938, longitude: 11.3430)
        // Groups over ~3 km, and phones around them: some on them, many within a few metres
        // of 20 m (where a plane's error would show), the rest anywhere.
        func offset(_ c: Coordinate, metres: Double, bearing: Double) -> Coordinate {
            Geodesic.wgs84.destination(from: c, bearing: bearing, distance: metres)
        }
        // And ~1 000 km from the first group, where the plane stretches 20 m by ~0.1 m.
        let far = offset(centre, metres: 1_000_000, bearing: 45)
        let groups = (0..<300).map { _ in offset(centre, metres: random.unit() * 1500, bearing: random.unit() * 360) }
            + (0..<100).map { _ in offset(far, metres: random.unit() * 1500, bearing: random.unit() * 360) }
        var phones: [Coordinate] = []
        for _ in 0..<3000 {
            let g = groups[Int(random.unit() * Double(groups.count)) % groups.count]
            phones.append(offset(g, metres: 19.9 + random.unit() * 0.2, bearing: random.unit() * 360))
            phones.append(offset(centre, metres: random.unit() * 2000, bearing: random.unit() * 360))
        }
        let exhaustive = PrivacyCost.countPairwise(phones, within: 20, of: groups)
        let indexed = try PrivacyCost.count(phones, within: 20, of: groups)
        #expect(indexed == exhaustive)
        // Both sides of the line are there: the test can tell a count that is off.
        #expect(exhaustive > 1000 && exhaustive < phones.count - 1000, "\(exhaustive)")
        #expect(try PrivacyCost.count(phones, within: 20, of: []) == 0)
    }
}
