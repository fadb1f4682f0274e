import struct Foundation.Date

/// A group of people as answered to a reader: one published place or cell, or several
/// merged by clustering. Built only from `PublishedPlace`s and `PublishedStats`.
///
/// Copy-on-write: everything but what an answer changes (the asker's distance and bearing,
/// a cut of the messages) lives in one shared box (`Group+Storage.swift`). A groups answer
/// copies each group it answers from the read model's ready ones, then the wire's view
/// copies it again; copying the box is one retain where copying the members was one per
/// array and optional reference in them (the copies and their releases were ~6 % of a dense
/// groups answer by profile, session 32).
public struct Group: Sendable, Equatable {
    /// From the asker (set per answer; zero until measured).
    public var distance: Double
    public var bearing: Double
    /// Newest first; a ready group carries as many as a query may inline, and an answer cuts
    /// them to what it asked for (beside the box, so the cut does not copy it).
    public var messages: [Message]
    private var storage: Storage

    /// The place id, or for a cluster the smallest member id; nil for a cell of small
    /// groups (and a cluster of cells only).
    public var id: Int64? {
        get { storage.id }
        set { unique().id = newValue }
    }
    /// As published (people-weighted centroid of published positions for clusters).
    public var position: Coordinate {
        get { storage.position }
        set { unique().position = newValue }
    }
    public var isCoarsened: Bool {
        get { storage.isCoarsened }
        set { unique().isCoarsened = newValue }
    }
    public var people: Int {
        get { storage.people }
        set { unique().people = newValue }
    }
    /// nil when withheld by the privacy policy.
    public var stats: PublishedStats? {
        get { storage.stats }
        set { unique().stats = newValue }
    }
    public var lastActivity: Date {
        get { storage.lastActivity }
        set { unique().lastActivity = newValue }
    }
    public var messageCount: Int {
        get { storage.messageCount }
        set { unique().messageCount = newValue }
    }
    /// The published ids of the places in the group (none for cells).
    public var memberPlaceIDs: [Int64] {
        get { storage.memberPlaceIDs }
        _modify { yield &unique().memberPlaceIDs }
    }
    /// The places whose messages the group shows; never answered.
    public var sources: [Int64] {
        get { storage.sources }
        _modify { yield &unique().sources }
    }
    /// Closed ring, for clusters (nil for single places and for small groups).
    public var hull: [Coordinate]? {
        get { storage.hull }
        _modify { yield &unique().hull }
    }
    /// Set on a group kept ready to copy (the groups read model's): what the answers that
    /// copy it share. Whatever changes a copy but for its distance, bearing or a cut of its
    /// messages must drop it.
    public var encodings: EncodingMemo? {
        get { storage.encodings }
        set { storage = storage.copy(replacingEncodings: newValue) }
    }

    /// ``EncodingMemo/withEncoding(_:make:_:)`` of the group's encodings; nil when it has none.
    /// Read in place: `encodings` hands out a reference (a retain, an atomic write to an object
    /// that every answer showing the group reads, from both event loops).
    public func withEncoding<R>(_ variant: Int, make: () -> [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        storage.encodings?.withEncoding(variant, make: make, body)
    }

    public init(id: Int64?, position: Coordinate, isCoarsened: Bool, distance: Double, bearing: Double, people: Int,
                stats: PublishedStats?, lastActivity: Date, messageCount: Int, messages: [Message], memberPlaceIDs: [Int64],
                sources: [Int64], hull: [Coordinate]?) {
        self.distance = distance
        self.bearing = bearing
        self.messages = messages
        storage = Storage(id: id, position: position, isCoarsened: isCoarsened, people: people, stats: stats,
                          lastActivity: lastActivity, messageCount: messageCount, memberPlaceIDs: memberPlaceIDs,
                          sources: sources, hull: hull, encodings: nil)
    }

    /// The box, copied first when another group shares it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    public static func == (a: Group, b: Group) -> Bool {
        a.distance == b.distance && a.bearing == b.bearing && a.messages == b.messages
            && (a.storage === b.storage || a.storage == b.storage)
    }
}

/// An anonymous message as readers see it.
public struct Message: Sendable, Equatable {
    /// Opaque: it says nothing of when the message was posted (`SQL/0023`).
    public var id: Int64
    /// nil where the place is not public (the poster's own answer; a small group's messages
    /// are not shown at all, see `PrivacyPolicy.publish`).
    public var placeID: Int64?
    public var text: String
    /// To the minute.
    public var createdAt: Date

    public init(id: Int64, placeID: Int64?, text: String, createdAt: Date) {
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
    /// Established people and reporters only (`people` is what readers may count).
    public var stats: PlaceStats
    public var lastActivity: Date
    public var messageCount: Int
    /// XOR of the random tags of the established reporters: keys the noise of their stats.
    public var mix: UInt64
    /// The breakdown and mix as of the current stats period (`SQL/0024`): what is published
    /// unless k = 1; nil before the place's first snapshot.
    public var snapshot: StatsSnapshot?
    /// What a place of k or more shows as its last activity: the minute of the newest ping,
    /// before the minute its counts were last shown, of the established people in it then
    /// (`SQL/0030`); nil before its first showing as such. `lastActivity` is the live row's,
    /// which whoever came and went since moved.
    public var shownActivity: Date?

    public init(id: Int64, anchor: Coordinate, stats: PlaceStats, lastActivity: Date, messageCount: Int, mix: UInt64 = 0,
                snapshot: StatsSnapshot? = nil, shownActivity: Date? = nil) {
        self.id = id
        self.anchor = anchor
        self.stats = stats
        self.lastActivity = lastActivity
        self.messageCount = messageCount
        self.mix = mix
        self.snapshot = snapshot
        self.shownActivity = shownActivity
    }
}

