import FollaCore
import FollaGeo
import FollaStore
import Foundation

/// The published places around a point: from this instance's read model
/// (`PlacesReadModel`), at most `period` old, or published from a database read when the
/// period is zero (tests, where an answer must show the last write) or the box around the
/// point crosses a pole or the antimeridian.
struct NearbyPlaces: Sendable {
    /// What one read found around a point.
    struct Snapshot: Sendable {
        /// What a read finds: entries published from a database read, or the read model's
        /// ready groups (as picks: `ReadyPicks` says why).
        enum Found: Sendable {
            case entries([PublishedPlace])
            case ready(ReadyPicks)
        }

        /// Every published entry within the radius (and possibly more), or for a query ordered by
        /// distance without clusters, enough of the nearest (`PublishedPlaces.around`).
        var found: Found
        /// The newest visible messages of the places behind `entries` that have any, newest
        /// first, up to the most a query may inline; nil when not read with the places.
        var messages: [Int64: [Message]]?
    }

    let reads: PlaceReads
    let privacy: PrivacyPolicy
    let clock: any WallClock
    private let model: PlacesReadModel?

    /// - Parameters:
    ///   - privacy: what readers may see.
    ///   - clock: the time of each answer.
    ///   - period: how stale an answer may be; zero reads the database every time.
    init(reads: PlaceReads, privacy: PrivacyPolicy, clock: any WallClock, period: Duration) {
        self.reads = reads
        self.privacy = privacy
        self.clock = clock
        model = period > .zero ? PlacesReadModel(changes: PlaceChanges(places: reads), privacy: privacy, clock: clock, period: period) : nil
    }

    /// Keeps the read model fresh until cancelled (`PlacesReadModel.keepFresh`); returns at
    /// once without one.
    func keepFresh() async {
        await model?.keepFresh()
    }

    /// ``read(for:messagesByPlace:)``'s answer from the read model when it is fresh, without
    /// touching the database; nil when the answer needs it (no model, a model too old, a box
    /// near a pole or across the antimeridian).
    func readFromMemory(for query: GroupQuery, messagesByPlace: Bool) -> Snapshot? {
        model?.readIfFresh(for: query, messagesByPlace: messagesByPlace)
    }

    /// The entries a query may answer: every entry within its radius (and possibly more), or
    /// from the read model, ordered by distance, enough of the nearest.
    /// - Parameters:
    ///   - query: its centre, radius, order, limit and people filter.
    ///   - messagesByPlace: whether the read model should hand on each place's messages.
    func read(for query: GroupQuery, messagesByPlace: Bool) async throws -> Snapshot {
        if let model, let snapshot = try await model.read(for: query, messagesByPlace: messagesByPlace) {
            return snapshot
        }
        // Live places by anchor: a cell's entry shows at its centre, up to a cell from them.
        // Held to the answer floor: the read fetches anchors within the radius plus that
        // margin and drops what publishes outside, so an empty answer's time told whether a
        // small place's anchor lay in the margin (outside probe, session 25: near the
        // antimeridian, a lone person's 10 m sub-row found by ~8 000 timed reads). The
        // model's path reads no anchor.
        return try await privacy.timingFloor.hold {
            let places = try await reads.nearby(query.centre, radius: query.radius + privacy.selectionMargin)
            return Snapshot(found: .entries(privacy.publish(places, at: clock.now())), messages: nil)
        }
    }
}
