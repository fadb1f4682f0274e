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
        let metres = grids.cellMetres
        let parts = (metres / grids.anchorMetres).rounded(.up)
        let latStep = metres / 111_320.0
        let row = (c.latitude / latStep).rounded(.down)
        let centre = min(90, max(-90, (row + 0.5) * latStep))
        let lonStep = min(360, metres / (111_320.0 * max(cos(centre * .pi / 180), 1e-6)))
        let column = ((c.longitude + 180) / lonStep).rounded(.down)
        let subLat = latStep / parts, subLon = lonStep / parts
        let subRow = min(parts - 1, max(0, ((c.latitude - row * latStep) / subLat).rounded(.down)))
        let subColumn = min(parts - 1, max(0, ((c.longitude + 180 - column * lonStep) / subLon).rounded(.down)))
        let lat = min(90, max(-90, row * latStep + (subRow + 0.5) * subLat))
        var lon = column * lonStep + (subColumn + 0.5) * subLon - 180
        if lon > 180 { lon -= 360 }
        return Coordinate(latitude: lat, longitude: lon)
    }
}
