import Foundation

/// k-anonymity for the read side: a group smaller than `k` is still counted, but where it
/// is exactly and who is in it are not revealed.
///
/// Its position snaps to a fixed grid of about `gridMetres`: the same cell every call, so
/// averaging many answers converges on the cell, never on the people. Age and sex are shown
/// only when at least `k` people reported them. `k = 1` is the original system's behaviour.
public struct PrivacyPolicy: Sendable, Equatable {
    public var k: Int
    public var gridMetres: Double

    public init(k: Int = 3, gridMetres: Double = 100) {
        self.k = max(1, k)
        self.gridMetres = gridMetres
    }

    public func isSmall(people: Int) -> Bool { people < k }

    /// The centre of the grid cell holding `c`. Cells are `gridMetres` tall; their width in
    /// degrees of longitude follows the cell row's latitude, so they stay near-square and the
    /// snapping depends on nothing but the point itself.
    public func coarsen(_ c: Coordinate) -> Coordinate {
        let metresPerDegree = 111_320.0
        let latStep = gridMetres / metresPerDegree
        let row = (c.latitude / latStep).rounded(.down)
        let lat = min(90, max(-90, (row + 0.5) * latStep))
        let cosine = max(cos(lat * .pi / 180), 1e-6)
        let lonStep = min(360, gridMetres / (metresPerDegree * cosine))
        let column = ((c.longitude + 180) / lonStep).rounded(.down)
        var lon = (column + 0.5) * lonStep - 180
        if lon > 180 { lon -= 360 }
        return Coordinate(latitude: lat, longitude: lon)
    }

    /// The stats a reader may see: the breakdown only when at least k people reported
    /// (or nobody did: zeros reveal nothing).
    public func visibleStats(_ s: PlaceStats) -> PlaceStats? {
        s.reporters == 0 || s.reporters >= k ? s : nil
    }
}
