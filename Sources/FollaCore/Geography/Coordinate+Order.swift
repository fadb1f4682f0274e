/// South to north, then west to east: the one tie-break of every list of published entries
/// (groups by distance or people, a wall's busiest, map clusters). Cells have no id, and
/// among entries tied on everything else the order must still depend on what is shown
/// only: it came from the read model's, which a touch of a place changed (an outside probe,
/// session 24, timed a lone person's pings and hidden posts by it).
extension Coordinate: Comparable {
    public static func < (a: Coordinate, b: Coordinate) -> Bool {
        (a.latitude, a.longitude) < (b.latitude, b.longitude)
    }
}
