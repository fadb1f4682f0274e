import Foundation

/// One thing a map draws at a zoom: a public place, a cell of small groups, or a cluster of
/// several of them. Positions and counts are what the privacy policy publishes: a cluster
/// is built from published entries only, and one holding fewer than k people shows at its
/// ~100 m cell like any small group.
public struct MapCluster: Sendable, Equatable {
    /// For a cluster: its id (for children and expansion zoom). Nil otherwise.
    public var clusterID: Int64?
    /// For a single public place: its id. Nil for cells and clusters.
    public var placeID: Int64?
    public var position: Coordinate
    public var people: Int
    /// Published entries inside (places and cells).
    public var places: Int
    /// True when the position is a ~100 m cell's centre (fewer than k people).
    public var isCoarsened: Bool
    /// For a cluster: the zoom at which it splits (where a click should zoom to).
    public var expansionZoom: Int?

    public var isCluster: Bool { clusterID != nil }

    public init(clusterID: Int64?, placeID: Int64?, position: Coordinate, people: Int, places: Int, isCoarsened: Bool, expansionZoom: Int?) {
        self.clusterID = clusterID
        self.placeID = placeID
        self.position = position
        self.people = people
        self.places = places
        self.isCoarsened = isCoarsened
        self.expansionZoom = expansionZoom
    }
}
