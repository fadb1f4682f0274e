import FollaCore
import FollaGeo
import FollaStore
import FollaTestSupport
import Foundation
import Testing

/// Whether a ping joins a place is no oracle (SQL/0020): a ping joins only places anchored
/// in its own ~100 m cell, and a place is anchored on the grid of published positions. An
/// outside attack (session 18) located a lone person near a cell border to 4 cm, and a
/// public place's founder to 1 mm, by bisecting the join circle around the anchor.
@Suite struct JoinPrivacyTests {
    static let policy = PrivacyPolicy(k: 3)
    static let grids = policy.joinGrids(joinRadius: CheckInPolicy.default.joinRadius)

    /// The latitude of the northern edge of the cell row holding `c` (cells are rows of
    /// `gridMetres / 111 320` degrees, `PrivacyPolicy.snap`).
    static func northEdge(of c: Coordinate) -> Double {
        let step = policy.gridMetres / 111_320
        return ((c.latitude / step).rounded(.down) + 1) * step
    }

    /// A person's place anchored just south of a cell border, an attacker's ping 8 m from
    /// that anchor just north of it: the attacker founds its own place in its own cell (its
    /// +1 is counted where it pinged). Without the grids it joined the person's place, and its
    /// +1 showed in the person's cell: the oracle the attack bisected.
    @Test(arguments: [true, false]) func aPingJoinsOnlyAPlaceOfItsOwnCell(withGrids: Bool) async throws {
        let grids = withGrids ? Self.grids : .none
        try await PresenceFixture.run { f in
            let edge = Self.northEdge(of: bologna)
            let person = Coordinate(latitude: edge - 2 / 111_320, longitude: bologna.longitude)
            let placed = try await f.checkIn(udid(1), person, grids: grids)
            let anchor = placed.place.anchor
            #expect(Self.policy.coarsen(anchor) == Self.policy.coarsen(person))
            let probe = Coordinate(latitude: edge + 3 / 111_320, longitude: anchor.longitude)
            let distance = Geodesic.wgs84.distance(from: anchor, to: probe)
            #expect(distance < 10, "the probe is within the join radius (\(distance) m)")
            #expect(Self.policy.coarsen(probe) != Self.policy.coarsen(anchor))
            let probed = try await f.checkIn(udid(2), probe, grids: grids)
            if withGrids {
                #expect(probed.outcome == .founded && probed.place.id != placed.place.id)
                #expect(Self.policy.coarsen(probed.place.anchor) == Self.policy.coarsen(probe))
            } else {
                #expect(probed.outcome == .joined && probed.place.id == placed.place.id)
            }
            // Within its own cell a ping still joins: 4 m from the anchor, same cell.
            let beside = Coordinate(latitude: anchor.latitude - 4 / 111_320, longitude: anchor.longitude)
            #expect(try await f.checkIn(udid(3), beside, grids: grids).place.id == placed.place.id)
            #expect(try await f.store.invariantViolations().isEmpty)
        }
    }

    /// A place is anchored at the centre of its founder's sub-cell (the Swift reference and
    /// SQL agree to the bit), never at the founder's ping, always in the founder's own cell; the
    /// founder, at most 7.1 m from it, stays. Also just west of a column border, where the
    /// fine grid of published positions anchored 2.9 % of pings in the next cell, near the
    /// antimeridian and in the Arctic.
    @Test func aPlaceIsAnchoredInItsFoundersOwnCell() async throws {
        try await PresenceFixture.run { f in
            let spots = [bologna, offset(bologna, bearing: 33, metres: 417.3), Coordinate(latitude: 44.4938, longitude: 11.343434),
                         Coordinate(latitude: -17.7, longitude: 179.99996), Coordinate(latitude: 78.2231, longitude: 15.6469),
                         Coordinate(latitude: -33.86785, longitude: 151.20732)]
                // A sweep over a few cells, ~12 m apart, through borders of both kinds.
                + (0..<40).map { Coordinate(latitude: 44.4938 + Double($0) * 0.00011, longitude: 11.34 + Double($0) * 0.000151) }
            for (i, spot) in spots.enumerated() {
                let founded = try await f.checkIn(udid(10 + i), spot, grids: Self.grids)
                #expect(founded.outcome == .founded)
                #expect(founded.place.anchor == PrivacyPolicy.anchor(of: spot, grids: Self.grids), "\(spot)")
                #expect(Self.policy.coarsen(founded.place.anchor) == Self.policy.coarsen(spot), "\(spot)")
                #expect(founded.place.anchor != spot)
                #expect(founded.distanceToAnchor <= Self.policy.fineGridMetres / 2.squareRoot() + 0.01)
                let again = try await f.checkIn(udid(10 + i), spot, time: 60, grids: Self.grids)
                #expect(again.outcome == .stayed && again.place.id == founded.place.id)
            }
            #expect(try await f.store.invariantViolations().isEmpty)
        }
    }

    /// A member who walks into the next cell leaves its place even within 10 m of the anchor:
    /// staying across the border kept its +1 in the place's cell, an oracle for a device that
    /// had joined an unknown place.
    @Test func aMemberWhoCrossesIntoTheNextCellLeaves() async throws {
        try await PresenceFixture.run { f in
            let edge = Self.northEdge(of: bologna)
            let founded = try await f.checkIn(udid(1), Coordinate(latitude: edge - 2 / 111_320, longitude: bologna.longitude),
                                              grids: Self.grids)
            let across = Coordinate(latitude: edge + 2 / 111_320, longitude: founded.place.anchor.longitude)
            #expect(Geodesic.wgs84.distance(from: founded.place.anchor, to: across) < 10)
            let moved = try await f.checkIn(udid(1), across, time: 60, grids: Self.grids)
            #expect(moved.outcome == .founded && moved.place.id != founded.place.id)
            #expect(Self.policy.coarsen(moved.place.anchor) == Self.policy.coarsen(across))
            #expect(try await f.store.invariantViolations().isEmpty)
        }
    }

    /// The anchor grid is never coarser than the join radius: a founder stays in its place.
    @Test func aSmallJoinRadiusAnchorsOnAFinerGrid() {
        #expect(Self.policy.joinGrids(joinRadius: 10) == JoinGrids(cellMetres: 100, anchorMetres: 10))
        #expect(Self.policy.joinGrids(joinRadius: 4) == JoinGrids(cellMetres: 100, anchorMetres: 4))
        #expect(PrivacyPolicy(k: 1).joinGrids(joinRadius: 10) == .none)
    }
}
