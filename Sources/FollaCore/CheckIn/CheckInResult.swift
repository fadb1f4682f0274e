import struct Foundation.Date

/// What a check-in did to the device's presence.
public enum CheckInOutcome: String, Sendable, Codable, CaseIterable {
    /// Had no live place; joined an existing one.
    case joined
    /// No place within the join radius: a new place was founded here (the device may have
    /// left another one: see `CheckInResult.previousPlaceID`).
    case founded
    /// Still within the join radius of its place.
    case stayed
    /// Left its place and joined another existing one.
    case moved
}

/// Aggregate, anonymous statistics of the people in a place or group.
public struct PlaceStats: Hashable, Sendable {
    public var people: Int
    /// People who reported both age and sex.
    public var reporters: Int
    public var ageSum: Int
    public var male: Int
    public var female: Int

    public init(people: Int, reporters: Int, ageSum: Int, male: Int, female: Int) {
        self.people = people
        self.reporters = reporters
        self.ageSum = ageSum
        self.male = male
        self.female = female
    }

    /// The stats of several places together; nil for none.
    public static func sum(_ all: [PlaceStats]) -> PlaceStats? {
        guard let first = all.first else { return nil }
        return all.dropFirst().reduce(first) { s, p in
            PlaceStats(people: s.people + p.people, reporters: s.reporters + p.reporters,
                       ageSum: s.ageSum + p.ageSum, male: s.male + p.male, female: s.female + p.female)
        }
    }

    /// Average age over reporters, nil when nobody reported.
    public var averageAge: Double? { reporters > 0 ? Double(ageSum) / Double(reporters) : nil }
}

/// A place as seen at one instant.
public struct PlaceSnapshot: Hashable, Sendable {
    public var id: Int64
    public var anchor: Coordinate
    public var stats: PlaceStats

    public init(id: Int64, anchor: Coordinate, stats: PlaceStats) {
        self.id = id
        self.anchor = anchor
        self.stats = stats
    }
}

/// The committed result of one check-in.
public struct CheckInResult: Hashable, Sendable {
    public var outcome: CheckInOutcome
    public var place: PlaceSnapshot
    public var previousPlaceID: Int64?
    /// Metres from the device to its place's anchor (geodesic).
    public var distanceToAnchor: Double
    public var messageID: Int64?
    public var at: Date
    /// Whether the device counts (established) from this ping on.
    public var established: Bool

    public init(outcome: CheckInOutcome, place: PlaceSnapshot, previousPlaceID: Int64?, distanceToAnchor: Double, messageID: Int64?, at: Date,
                established: Bool = true) {
        self.outcome = outcome
        self.place = place
        self.previousPlaceID = previousPlaceID
        self.distanceToAnchor = distanceToAnchor
        self.messageID = messageID
        self.at = at
        self.established = established
    }
}

/// Why a well-formed check-in was refused by a presence rule (as opposed to bad input).
public enum CheckInRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The implied speed since the previous ping exceeds `CheckInPolicy.maxSpeed`.
    case teleport
    /// The client network spent its budget of new device ids; retry after this many seconds.
    case budget(retryAfter: Int)
    /// A message or a report from a device that does not count yet (seen for too short a time).
    case notEstablished

    /// A fixed name for metrics (no value in it: a retry delay is not a label).
    public var metricReason: String {
        switch self {
        case .teleport: "teleport"
        case .budget: "new_device_budget"
        case .notEstablished: "not_established"
        }
    }

    /// Says neither speed nor distance: with someone's device id, those would trilaterate them.
    public var description: String {
        switch self {
        case .teleport:
            "the movement since the previous ping is not plausible; position not updated"
        case let .budget(retry):
            "too many new devices from this network; retry in \(retry) s (devices seen before are not limited)"
        case .notEstablished:
            "this device does not count yet: it may post and report after a few minutes of check-ins"
        }
    }
}
