/// Where a ping may join a place and where a new place is anchored, so that whether a ping
/// joined (which the answers show) tells nothing finer than what is published (SQL/0020).
///
/// Without them one established device could bisect the join circle around a place's
/// anchor: a lone person near a cell border was located to 4 cm, and a public place's
/// founder (the anchor was the founder's exact first ping) to 1 mm.
public struct JoinGrids: Sendable, Equatable {
    /// A ping joins, or stays in, only a place anchored in its own cell of this side (small
    /// groups' cells), so its own +1 is counted where it pinged; 0: any place in the radius.
    public var cellMetres: Double
    /// A new place is anchored at the centre of the founder's sub-cell of about this side,
    /// within the founder's own cell (`PrivacyPolicy.anchor(of:grids:)`); 0: at the founder's
    /// exact ping.
    public var anchorMetres: Double

    /// - Parameters:
    ///   - cellMetres: the cell a ping may join within (0: any).
    ///   - anchorMetres: the grid new anchors snap to (0: exact).
    public init(cellMetres: Double, anchorMetres: Double) {
        self.cellMetres = cellMetres
        self.anchorMetres = anchorMetres
    }

    /// The original system's: joins across cells, exact anchors.
    public static let none = JoinGrids(cellMetres: 0, anchorMetres: 0)
}
