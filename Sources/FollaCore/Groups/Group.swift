import struct Foundation.Date

/// A group of people as answered to a reader: one place, or several merged by clustering.
public struct Group: Sendable, Equatable {
    /// The place id, or for a cluster the smallest member id.
    public var id: Int64
    /// Exact (people-weighted centroid for clusters) or coarsened by the privacy policy.
    public var position: Coordinate
    public var isCoarsened: Bool
    public var distance: Double
    public var bearing: Double
    public var people: Int
    /// nil when withheld by the privacy policy.
    public var stats: PlaceStats?
    public var lastActivity: Date
    public var messageCount: Int
    public var messages: [Message]
    public var memberPlaceIDs: [Int64]
    /// Closed ring, for clusters (nil for single places and for small groups).
    public var hull: [Coordinate]?

    public init(id: Int64, position: Coordinate, isCoarsened: Bool, distance: Double, bearing: Double, people: Int,
                stats: PlaceStats?, lastActivity: Date, messageCount: Int, messages: [Message], memberPlaceIDs: [Int64],
                hull: [Coordinate]?) {
        self.id = id
        self.position = position
        self.isCoarsened = isCoarsened
        self.distance = distance
        self.bearing = bearing
        self.people = people
        self.stats = stats
        self.lastActivity = lastActivity
        self.messageCount = messageCount
        self.messages = messages
        self.memberPlaceIDs = memberPlaceIDs
        self.hull = hull
    }
}

/// An anonymous message as readers see it.
public struct Message: Sendable, Equatable {
    public var id: Int64
    public var placeID: Int64
    public var text: String
    public var createdAt: Date

    public init(id: Int64, placeID: Int64, text: String, createdAt: Date) {
        self.id = id
        self.placeID = placeID
        self.text = text
        self.createdAt = createdAt
    }
}

/// A live place as read from the store, before privacy and geometry are applied.
public struct LivePlace: Sendable, Equatable {
    public var id: Int64
    public var anchor: Coordinate
    public var stats: PlaceStats
    public var lastActivity: Date
    public var messageCount: Int

    public init(id: Int64, anchor: Coordinate, stats: PlaceStats, lastActivity: Date, messageCount: Int) {
        self.id = id
        self.anchor = anchor
        self.stats = stats
        self.lastActivity = lastActivity
        self.messageCount = messageCount
    }
}
