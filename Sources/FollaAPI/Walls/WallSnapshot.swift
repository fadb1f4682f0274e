import FollaCore
import FollaGeo
import FollaStore
import Foundation

/// A wall as screens see it: what is happening in the area now, privacy applied.
struct WallSnapshot: Sendable, Equatable {
    struct Spot: Sendable, Equatable {
        var placeID: Int64
        var people: Int
        var position: Coordinate
        var coarsened: Bool
        var stats: PlaceStats?
    }

    var id: String
    var title: String
    var people: Int
    var places: Int
    var stats: PlaceStats?
    var busiest: [Spot]
    /// Newest first.
    var messages: [Message]
    /// Latest change seen in the data: stable while nothing changes, so ETags are too.
    var updatedAt: Date

    init(id: String, title: String, data: WallData, privacy: PrivacyPolicy, busiest count: Int = 5) {
        self.id = id
        self.title = title
        people = data.places.reduce(0) { $0 + $1.stats.people }
        places = data.places.count
        // The breakdown sums only places big enough to show theirs (see GroupAssembler).
        stats = PlaceStats.sum(data.places.filter { !privacy.isSmall(people: $0.stats.people) }.map(\.stats))
            .flatMap(privacy.visibleStats)
        busiest = data.places.sorted { ($1.stats.people, $0.id) < ($0.stats.people, $1.id) }.prefix(count).map { p in
            let small = privacy.isSmall(people: p.stats.people)
            return Spot(placeID: p.id, people: p.stats.people, position: small ? privacy.coarsen(p.anchor) : p.anchor,
                        coarsened: small, stats: small ? nil : privacy.visibleStats(p.stats))
        }
        messages = data.messages
        updatedAt = max(data.messages.map(\.createdAt).max() ?? .distantPast,
                        data.places.map(\.lastActivity).max() ?? .distantPast, Date(timeIntervalSince1970: 0))
    }

    /// The same wall with only the messages newer than `after` (incremental polling).
    func after(_ id: Int64?) -> WallSnapshot {
        guard let id else { return self }
        var copy = self
        copy.messages = messages.filter { $0.id > id }
        return copy
    }
}
