import FollaCore
import FollaGeo
import FollaStore
import Foundation
import Logging
import Metrics
import Synchronization

/// This instance's in-process read model of the live places, for groups: answers are built
/// from memory, and the database is asked only for what changed (`PlaceChanges`, the change
/// cursor of SQL/0014).
///
/// It replaced a micro-cache of one database read per ~50 m tile and second: in a dense
/// evening a hundred tiles a second each read and decoded the few thousand places within
/// ~350 m of them, mostly the same places, and the groups path became the box's bottleneck
/// (20 000 phones: groups p50 0.8 s once the phones' second pings came).
///
/// Staleness bound: `period`. A reader finds the model refreshed at most `period` ago or
/// waits for a refresh; past half of it, a refresh starts in the background (stale while
/// revalidating), so a busy server never waits. A server also keeps it fresh on its own
/// (`keepFresh`, every half period), so that a reader of a quiet server does not wait for
/// the refresh either: its time told what the refresh found (a hidden message's place read
/// its messages too), and an outside probe polling an empty area every 1.25 s told the
/// seconds in which hidden messages were posted (session 23). Every instance keeps its own
/// model from the same cursor: a change through any instance reaches all of them within the
/// bound.
final class PlacesReadModel: Sendable {
    private struct State {
        var places: PublishedPlaces
        var horizon: Int64?
        /// When the read behind the current state started.
        var readAt: ContinuousClock.Instant?
    }

    private let changes: PlaceChanges
    private let privacy: PrivacyPolicy
    private let clock: any WallClock
    private let period: Duration
    private let state: Mutex<State>
    private let refreshing = Mutex<Task<Void, any Error>?>(nil)
    private let fullReads = Counter(label: "folla_groups_model_reads_total", dimensions: [("kind", "full")])
    private let deltaReads = Counter(label: "folla_groups_model_reads_total", dimensions: [("kind", "delta")])
    private let size = Gauge(label: "folla_groups_model_places")
    private let failures = Counter(label: "folla_groups_model_read_failures_total")

    /// - Parameters:
    ///   - changes: where the changes are read.
    ///   - privacy: what readers may see (the model keeps places as published).
    ///   - clock: the time of each look (a cell's shown activity follows it).
    ///   - period: the staleness bound (see the type's comment); more than zero.
    init(changes: PlaceChanges, privacy: PrivacyPolicy, clock: any WallClock, period: Duration) {
        precondition(period > .zero)
        self.changes = changes
        self.privacy = privacy
        self.clock = clock
        self.period = period
        state = Mutex(State(places: Self.empty(privacy)))
    }

    private static func empty(_ privacy: PrivacyPolicy) -> PublishedPlaces {
        PublishedPlaces(privacy: privacy, messages: GroupQuery.messagesRange.upperBound)
    }

    /// The published entries around a point, each with its own group (see
    /// `PublishedPlaces.around`); nil when the box comes within a degree of a pole or crosses
    /// the antimeridian, or when the model cannot be refreshed (the caller reads the database
    /// then).
    /// - Parameters:
    ///   - query: what is asked (`PublishedPlaces.around` walks only as far as it needs).
    ///   - messagesByPlace: whether to hand on each place's messages too.
    func read(for query: GroupQuery, messagesByPlace: Bool) async throws -> NearbyPlaces.Snapshot? {
        do {
            try await fresh()
        } catch {
            // The database answers (or says it is down) rather than a model it cannot refresh.
            changes.places.logger.debug("groups read model refresh failed", metadata: ["error": "\(error)"])
            return nil
        }
        return state.withLock { $0.places.around(query, messagesByPlace: messagesByPlace) }
    }

    /// ``read(for:messagesByPlace:)``'s answer when the model is fresh, without waiting;
    /// nil when it is older than `period` (or was never read), or when the answer needs the
    /// database anyway (near a pole, across the antimeridian). Past half of the period, a
    /// refresh starts in the background, as for every reader.
    func readIfFresh(for query: GroupQuery, messagesByPlace: Bool) -> NearbyPlaces.Snapshot? {
        let (snapshot, age) = state.withLock { s -> (NearbyPlaces.Snapshot?, Age) in
            // Walked under the lock, as in `read`: a copy taken out of it retains the
            // model's shared storage, an atomic write to the same few objects from both event
            // loops (an answer cost ~1 % more that way, side by side).
            let age = self.age(of: s.readAt)
            return (age == .stale ? nil : s.places.around(query, messagesByPlace: messagesByPlace), age)
        }
        if age == .ageing { _ = refresh() }
        return snapshot
    }

    /// Refreshes the model every half period until cancelled, so that readers find it fresh.
    func keepFresh() async {
        while !Task.isCancelled {
            // Released when cancelled (a shutdown), though the database may hang the refresh.
            _ = try? await FirstResult.value(of: refresh())
            do { try await Task.sleep(for: period / 2) } catch { return }
        }
    }

    /// Waits for a refresh when the model is older than `period`; starts one in the
    /// background when older than half of it.
    private func fresh() async throws {
        switch age(of: state.withLock { $0.readAt }) {
        case .fresh: return
        case .ageing: _ = refresh()
        case .stale:
            // Released when this request is cancelled (an outage): the refresh is shared,
            // and waits on the database for as long as a frozen one stays frozen.
            try await FirstResult.value(of: refresh())
        }
    }

    /// How a model read at `readAt` stands against the staleness bound.
    private enum Age {
        /// Read within half the period.
        case fresh
        /// Still within the period; a refresh should start in the background.
        case ageing
        /// Older than the period, or never read: a reader must wait for a refresh.
        case stale
    }

    private func age(of readAt: ContinuousClock.Instant?, now: ContinuousClock.Instant = .now) -> Age {
        guard let readAt, now - readAt <= period else { return .stale }
        return now - readAt > period / 2 ? .ageing : .fresh
    }

    /// The refresh in flight, or a new one (one at a time).
    private func refresh() -> Task<Void, any Error> {
        refreshing.withLock { current in
            if let current { return current }
            let task = Task {
                defer { self.refreshing.withLock { $0 = nil } }
                do {
                    try await self.pull()
                } catch {
                    self.failures.increment()
                    throw error
                }
            }
            current = task
            return task
        }
    }

    /// Reads what changed since the last horizon (everything the first time, or after a
    /// long gap) and applies it.
    private func pull() async throws {
        let started = ContinuousClock.now
        let now = clock.now()
        // From the last horizon, unless there is none yet or it is too old to trust.
        let since = state.withLock { s in s.readAt.flatMap { started - $0 > PlaceChanges.reloadAfter ? nil : s.horizon } }
        let full = since == nil
        let delta = try await changes.read(since: since, messagesPerPlace: GroupQuery.messagesRange.upperBound)
        // A full load publishes every place and builds its group: done outside the lock, so
        // readers keep answering from the old state meanwhile (a delta is small).
        var reloaded: PublishedPlaces?
        if full {
            var places = Self.empty(privacy)
            places.apply(changed: delta.live, gone: delta.gone, messages: delta.messages, at: now)
            reloaded = places
        }
        let count = state.withLock { s in
            if let reloaded {
                s.places = reloaded
            } else {
                s.places.apply(changed: delta.live, gone: delta.gone, messages: delta.messages, at: now)
            }
            s.horizon = delta.horizon
            s.readAt = started
            return s.places.count
        }
        (full ? fullReads : deltaReads).increment()
        size.record(count)
    }
}
