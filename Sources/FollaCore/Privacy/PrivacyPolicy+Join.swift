import Foundation

extension PrivacyPolicy {
    /// The join grids of this policy: small groups' cells, and anchors on sub-cells of about
    /// the fine grid's side (finer if the join radius is smaller, so that a founder, at most
    /// half a diagonal from the anchor, still belongs to the place). None at k = 1.
    /// - Parameter joinRadius: the check-in policy's join radius, metres.
    public func joinGrids(joinRadius: Double) -> JoinGrids {
        isOriginal ? .none : JoinGrids(cellMetres: gridMetres, anchorMetres: min(fineGridMetres, joinRadius))
    }

    /// Where a place founded at `c` is anchored (SQL/0020's `folla_anchor`, operation for
    /// operation): the centre of the sub-cell holding `c` when `c`'s cell (`snap`) is cut into
    /// n × n sub-cells, n = cell / anchor side rounded up. A sub-cell, not the fine grid of
    /// `refine`: that grid's columns do not nest in the cells' (their widths follow different
    /// row latitudes), and 2.9 % of Bologna's pings were anchored in the next cell, where a
    /// ping beside them could not join them, an oracle again.
    /// - Parameters:
    ///   - c: the founder's ping.
    ///   - grids: the policy's join grids; `c` itself when they are `.none`.
    public static func anchor(of c: Coordinate, grids: JoinGrids) -> Coordinate {
        guard grids.cellMetres > 0, grids.anchorMetres > 0 else { return c }
        let cell = GridCell(holding: c, metres: grids.cellMetres)
        let parts = (grids.cellMetres / grids.anchorMetres).rounded(.up)
        let subLat = cell.latStep / parts, subLon = cell.lonStep / parts
        let subRow = min(parts - 1, max(0, ((c.latitude - cell.row * cell.latStep) / subLat).rounded(.down)))
        let subColumn = min(parts - 1, max(0, ((c.longitude + 180 - cell.column * cell.lonStep) / subLon).rounded(.down)))
        let lat = min(90, max(-90, cell.row * cell.latStep + (subRow + 0.5) * subLat))
        let lon = GridCell.wrapped(cell.column * cell.lonStep + (subColumn + 0.5) * subLon - 180)
        return Coordinate(latitude: lat, longitude: lon)
    }
}
