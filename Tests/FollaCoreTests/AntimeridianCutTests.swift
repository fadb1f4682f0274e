import FollaCore
import Testing

/// RFC 7946 §3.1.9: a hull across the antimeridian is written as its two parts there, each
/// within ±180°. Before (an outside fuzzer, session 23), a hull of people on both sides of
/// 180° was one ring jumping from 180° to −180°, drawn around the world.
@Suite struct AntimeridianCutTests {
    @Test func aRingAcrossTheAntimeridianIsCutInTwo() {
        let ring = [[179.9, 0], [-179.9, 0], [-179.9, 1], [179.9, 1], [179.9, 0]]
        let parts = AntimeridianCut.parts(of: ring)
        #expect(parts.count == 2)
        for part in parts {
            #expect(part.first == part.last && part.count >= 4)
            let lons = part.map { $0[0] }
            #expect(lons.allSatisfy { (-180...180).contains($0) })
            // Neither part crosses: its longitudes span a fifth of a degree, not the world.
            #expect(lons.max()! - lons.min()! < 0.2 + 1e-9, "\(part)")
        }
        let sides = Set(parts.map { $0[0][0] > 0 })
        #expect(sides == [true, false])
        // Each part is the square's half, at the cut's latitudes.
        #expect(parts.allSatisfy { part in part.contains { abs(abs($0[0]) - 180) < 1e-9 && $0[1] == 0 } })
    }

    @Test func aRingAcrossMinus180IsCutToo() {
        let ring = [[-179.95, -1], [179.95, -1], [179.95, 1], [-179.95, 1], [-179.95, -1]]
        #expect(AntimeridianCut.parts(of: ring).count == 2)
    }

    @Test func aRingElsewhereIsLeftAlone() {
        let ring = [[11.3, 44.4], [11.4, 44.4], [11.4, 44.5], [11.3, 44.5], [11.3, 44.4]]
        #expect(AntimeridianCut.parts(of: ring) == [ring])
        let greenwich = [[-0.1, 51.4], [0.1, 51.4], [0.1, 51.6], [-0.1, 51.4]]
        #expect(AntimeridianCut.parts(of: greenwich) == [greenwich])
    }
}
