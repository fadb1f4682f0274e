import FollaCore
import Foundation

/// What a wall shows, already through the privacy policy: published entries inside the
/// area (cells for small groups) and the newest messages of their places.
public struct WallData: Sendable, Equatable {
    public var name: String?
    public var entries: [PublishedPlace]
    /// Newest first; only public places' (a cell shows no messages).
    public var messages: [Message]

    public init(name: String?, entries: [PublishedPlace], messages: [Message]) {
        self.name = name
        self.entries = entries
        self.messages = messages
    }
}

/// A wall as screens see it: what is happening in the area now.
public struct WallSnapshot: Sendable, Equatable {
    public struct Spot: Sendable, Equatable {
        /// nil for a cell of small groups.
        public var placeID: Int64?
        public var people: Int
        public var position: Coordinate
        public var coarsened: Bool
        public var stats: PublishedStats?
    }

    public var id: String
    public var title: String
    public var people: Int
    /// Entries shown: published places, and one per cell of small groups.
    public var places: Int
    public var stats: PublishedStats?
    public var busiest: [Spot]
    /// Newest first.
    public var messages: [Message]
    /// Latest change seen in the data: stable while nothing changes, so ETags are too.
    public var updatedAt: Date

    public init(id: String, title: String, data: WallData, privacy: PrivacyPolicy, busiest count: Int = 5) {
        self.id = id
        self.title = title
        people = data.entries.reduce(0) { $0 + $1.people }
        places = data.entries.count
        stats = privacy.stats(of: data.entries)
        // Ties (cells have no id) by position (`Coordinate+Order`): the entries come in the
        // database's or the read model's order, which touches change.
        let ranked = data.entries.sorted { ($1.people, $0.id ?? .max, $0.position) < ($0.people, $1.id ?? .max, $1.position) }
        busiest = ranked.prefix(count).map { e in
            Spot(placeID: e.id, people: e.people, position: e.position, coarsened: e.isCell,
                 stats: e.isCell ? nil : privacy.stats(of: [e]))
        }
        messages = data.messages
        updatedAt = max(data.messages.map(\.createdAt).max() ?? .distantPast,
                        data.entries.map(\.lastActivity).max() ?? .distantPast, Date(timeIntervalSince1970: 0))
    }

    /// The same wall with only the messages due after the one shown as `id` (incremental
    /// polling: `Message.isDue(after:)`, from its minute on). Ids say nothing of order
    /// (`SQL/0023`), so the message is found among the wall's own; an id the wall does not
    /// show (older than all of them, hidden since, or none at all) keeps every message, as a
    /// first poll does.
    public func after(_ id: Int64?) -> WallSnapshot {
        guard let id, let cursor = message(id) else { return self }
        var copy = self
        copy.messages = messages.filter { $0.isDue(after: cursor) }
        return copy
    }

    /// The wall's message shown as `id`; nil when the wall does not show it.
    public func message(_ id: Int64) -> Message? {
        messages.first { $0.id == id }
    }
}
