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
/// revalidating), so a busy server never waits. Every instance keeps its own model from the
/// same cursor: a change through any instance reaches all of them within the bound.
final class PlacesReadModel: Sendable {
    /// A square of the grid the places are filed under: `cellDegrees` of latitude and of
    /// longitude (about 220 m × 160 m at Bologna's latitude).
    private struct Cell: Hashable {
        var row: Int32
        var column: Int32

        init(_ c: Coordinate) {
            row = Int32((c.latitude / PlacesReadModel.cellDegrees).rounded(.down))
            column = Int32((c.longitude / PlacesReadModel.cellDegrees).rounded(.down))
        }

        init(row: Int32, column: Int32) {
            self.row = row
            self.column = column
        }
    }

    /// A place with the newest visible messages it has (nil when none).
    private struct Entry {
        var place: LivePlace
        var messages: [Message]?
    }

    private struct State {
        /// The places filed by cell, each with its messages: a read walks its cells and hashes
        /// nothing per place (a look-up per place in a second table was 10 % of a groups answer).
        var cells: [Cell: [Int64: Entry]] = [:]
        /// Where each place is filed.
        var filed: [Int64: Cell] = [:]
        var horizon: Int64?
        /// When the read behind the current state started.
        var readAt: ContinuousClock.Instant?

        var count: Int { filed.count }

        mutating func remove(_ id: Int64) {
            guard let cell = filed.removeValue(forKey: id) else { return }
            cells[cell]?[id] = nil
            if cells[cell]?.isEmpty == true { cells[cell] = nil }
        }

        mutating func put(_ place: LivePlace, messages latest: [Message]?) {
            remove(place.id)
            let cell = Cell(place.anchor)
            filed[place.id] = cell
            cells[cell, default: [:]][place.id] = Entry(place: place, messages: latest)
        }
    }

    static let cellDegrees = 0.002

    private let changes: PlaceChanges
    private let period: Duration
    private let state = Mutex(State())
    private let refreshing = Mutex<Task<Void, any Error>?>(nil)
    private let fullReads = Counter(label: "folla_groups_model_reads_total", dimensions: [("kind", "full")])
    private let deltaReads = Counter(label: "folla_groups_model_reads_total", dimensions: [("kind", "delta")])
    private let size = Gauge(label: "folla_groups_model_places")
    private let failures = Counter(label: "folla_groups_model_read_failures_total")

    /// - Parameters:
    ///   - changes: where the changes are read.
    ///   - period: the staleness bound (see the type's comment); more than zero.
    init(changes: PlaceChanges, period: Duration) {
        precondition(period > .zero)
        self.changes = changes
        self.period = period
    }

    /// Every live place whose anchor lies within `radius` metres of `centre`, and those within
    /// about 5 % more (what a `GeodesicDisc` cannot rule out; the assembler keeps what lies
    /// within its radius), with the newest messages of those that have any; nil when the box
    /// comes within a degree of a pole or crosses the antimeridian, or when the model cannot
    /// be refreshed (the caller reads the database then).
    func read(around centre: Coordinate, radius: Double) async throws -> NearbyPlaces.Snapshot? {
        let metresPerDegree = 111_320.0
        let dLat = radius / metresPerDegree + Self.cellDegrees
        // Near a pole the longitude scale below is unreliable.
        guard abs(centre.latitude) + dLat < 89 else { return nil }
        let dLon = radius / (metresPerDegree * cos((abs(centre.latitude) + dLat) * .pi / 180)) + Self.cellDegrees
        guard abs(centre.longitude) + dLon < 180 else { return nil }
        do {
            try await fresh()
        } catch {
            // The database answers (or says it is down) rather than a model it cannot refresh.
            changes.places.logger.debug("groups read model refresh failed", metadata: ["error": "\(error)"])
            return nil
        }
        let low = Cell(Coordinate(latitude: centre.latitude - dLat, longitude: centre.longitude - dLon))
        let high = Cell(Coordinate(latitude: centre.latitude + dLat, longitude: centre.longitude + dLon))
        let cellCount = (Int(high.row) - Int(low.row) + 1) * (Int(high.column) - Int(low.column) + 1)
        let disc = GeodesicDisc(centre: centre, radius: radius)
        return state.withLock { s in
            var places: [LivePlace] = []
            var messages: [Int64: [Message]] = [:]
            func take(_ entries: [Int64: Entry]) {
                for entry in entries.values {
                    // The cells' box is several times the circle's area; what is clearly
                    // outside is not handed on (every later step costs per place).
                    guard disc.mayContain(entry.place.anchor) else { continue }
                    places.append(entry.place)
                    if let m = entry.messages { messages[entry.place.id] = m }
                }
            }
            if cellCount > s.cells.count {
                // A box wider than the filled cells: look at every filled cell instead.
                for (cell, entries) in s.cells
                where (low.row...high.row).contains(cell.row) && (low.column...high.column).contains(cell.column) {
                    take(entries)
                }
            } else {
                for row in low.row...high.row {
                    for column in low.column...high.column {
                        if let entries = s.cells[Cell(row: row, column: column)] { take(entries) }
                    }
                }
            }
            return NearbyPlaces.Snapshot(places: places, messages: messages)
        }
    }

    /// Waits for a refresh when the model is older than `period`; starts one in the
    /// background when older than half of it.
    private func fresh() async throws {
        let now = ContinuousClock.now
        let readAt = state.withLock { $0.readAt }
        guard let readAt, now - readAt <= period else {
            try await refresh().value
            return
        }
        if now - readAt > period / 2 { _ = refresh() }
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
        // From the last horizon, unless there is none yet or it is too old to trust.
        let since = state.withLock { s in s.readAt.flatMap { started - $0 > PlaceChanges.reloadAfter ? nil : s.horizon } }
        let full = since == nil
        let delta = try await changes.read(since: since, messagesPerPlace: GroupQuery.messagesRange.upperBound)
        let count = state.withLock { s in
            if full { s = State() }
            for id in delta.gone { s.remove(id) }
            for place in delta.live { s.put(place, messages: delta.messages[place.id]) }
            s.horizon = delta.horizon
            s.readAt = started
            return s.count
        }
        (full ? fullReads : deltaReads).increment()
        size.record(count)
    }
}
