import FollaCore
import FollaGeo
import Foundation

/// The groups read model's contents: every live place, and what `PrivacyPolicy.publish`
/// shows of them, each published entry with its own group ready (`GroupAssembler.single`,
/// with as many messages as a query may inline), filed by where it shows.
///
/// Publishing goes by key (`PrivacyPolicy.publishedKey`): a place of k or more alone, the
/// small places of one cell together. A change publishes again only the keys it touches, so
/// a refresh costs what changed, not the city; and a groups answer copies the groups it
/// answers instead of publishing, drawing noise for and building a group from every place
/// in range. Profiled in a 40 000-phone Bologna evening (~400 places within the phones'
/// 300 m), that per-request work and the JSON after it were ~60 % of the server's CPU.
struct PublishedPlaces {
    /// A square of the grid the entries are filed under by published position: `degrees` of
    /// latitude and of longitude (about 220 m × 160 m at Bologna's latitude).
    struct Cell: Hashable {
        static let degrees = 0.002
        var row: Int32
        var column: Int32

        init(_ c: Coordinate) {
            row = Int32((c.latitude / Self.degrees).rounded(.down))
            column = Int32((c.longitude / Self.degrees).rounded(.down))
        }

        init(row: Int32, column: Int32) {
            self.row = row
            self.column = column
        }

        /// The latitudes and longitudes of the cells from `self` to `other` (included).
        func span(to other: Cell) -> (latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>) {
            (Double(row) * Self.degrees...Double(other.row + 1) * Self.degrees,
             Double(column) * Self.degrees...Double(other.column + 1) * Self.degrees)
        }
    }

    /// One cell's entries, in no order: a read walks the array, a change finds its key by a
    /// linear search (a cell holds tens of entries, and reads far outnumber changes).
    struct Shown {
        /// One entry: what a walk tests and orders by, copied beside its group, so that a walk
        /// reads one array and touches nothing of an entry it does not answer (`ReadyPicks`
        /// says why).
        struct Entry: Sendable {
            let key: PublishedKey
            /// The group's published position.
            let position: Coordinate
            let people: Int
            let messageCount: Int
            /// `PublishedPlace.idIfPlace`.
            let id: Int64?
            let group: ReadyGroup

            init(_ key: PublishedKey, _ group: ReadyGroup) {
                self.key = key
                position = group.entry.position
                people = group.entry.people
                messageCount = group.entry.messageCount
                id = group.entry.idIfPlace
                self.group = group
            }
        }

        /// One array: copying a cell out of the dictionary is one retain, and a walk that
        /// holds it keeps every group in it alive (`ReadyPicks`); a change to a cell a walk
        /// still holds copies the array first (one retain per entry, under the lock).
        private(set) var entries: [Entry] = []

        var isEmpty: Bool { entries.isEmpty }

        mutating func set(_ key: PublishedKey, _ group: ReadyGroup) {
            if let i = entries.firstIndex(where: { $0.key == key }) {
                entries[i] = Entry(key, group)
            } else {
                entries.append(Entry(key, group))
            }
        }

        /// The entry filed under `key`, if any.
        func group(for key: PublishedKey) -> ReadyGroup? {
            entries.first { $0.key == key }?.group
        }

        mutating func remove(_ key: PublishedKey) {
            guard let i = entries.firstIndex(where: { $0.key == key }) else { return }
            entries.swapAt(i, entries.count - 1)
            entries.removeLast()
        }
    }

    /// A live place and its newest visible messages (nil when none).
    struct Live {
        var place: LivePlace
        var messages: [Message]?
    }

    let privacy: PrivacyPolicy
    /// How many messages each ready group carries: the most a query may inline.
    let messages: Int
    private(set) var live: [Int64: Live] = [:]
    /// The small places of each cell key.
    private var small: [PublishedKey: Set<Int64>] = [:]
    /// The entries filed by cell: a read walks its cells and hashes nothing per entry.
    private(set) var cells: [Cell: Shown] = [:]
    private var filed: [PublishedKey: Cell] = [:]
    /// The minute the entries were last stamped in: shown activity turns at minutes and
    /// quarter hours of the clock (`PrivacyPolicy.shownActivity`), so every entry's is
    /// looked at again when the clock enters a new minute, whatever changed (`restamp`).
    private var minute: Date?

    /// - Parameters:
    ///   - privacy: what readers may see.
    ///   - messages: how many messages each ready group carries.
    init(privacy: PrivacyPolicy, messages: Int) {
        self.privacy = privacy
        self.messages = messages
    }

    /// Live places.
    var count: Int { live.count }

    /// Applies one look at the database (`PlaceChanges.Delta`).
    /// - Parameters:
    ///   - changed: places that changed and show, as they are now.
    ///   - gone: places that changed and no longer show.
    ///   - messages: the newest visible messages of the changed places that have any.
    ///   - now: the time of the look.
    mutating func apply(changed: [LivePlace], gone: [Int64], messages: [Int64: [Message]], at now: Date) {
        var touched: Set<PublishedKey> = []
        let minute = now.floored(toMultipleOf: 60)
        if minute != self.minute {
            self.minute = minute
            restamp(at: now)
        }
        func drop(_ id: Int64) {
            guard let old = live.removeValue(forKey: id), let key = privacy.publishedKey(of: old.place) else { return }
            touched.insert(key)
            if case .cell = key {
                small[key]?.remove(id)
                if small[key]?.isEmpty == true { small[key] = nil }
            }
        }
        for id in gone { drop(id) }
        for place in changed {
            drop(place.id)
            live[place.id] = Live(place: place, messages: messages[place.id])
            guard let key = privacy.publishedKey(of: place) else { continue }
            touched.insert(key)
            if case .cell = key { small[key, default: []].insert(place.id) }
        }
        for key in touched { republish(key, at: now) }
    }

    /// Gives every entry whose shown activity the clock has turned its new one, and changes
    /// nothing else: publishing every entry again (stats, groups) stalled a 40 000-phone
    /// evening for ~0.3 s each minute, readers waiting for the model's lock.
    private mutating func restamp(at now: Date) {
        for (key, square) in filed {
            guard let ready = cells[square]?.group(for: key) else { continue }
            let shown: Date?
            switch key {
            case let .place(id):
                shown = live[id].map { privacy.shownActivity(of: $0.place, isCell: false, at: now) }
            case .cell:
                // The cell's entry as `PrivacyPolicy.publish` stamps it (without its group).
                shown = privacy.publish(places(of: key), at: now).first?.lastActivity
            }
            if let shown, shown != ready.entry.lastActivity { cells[square]?.set(key, ready.stamped(shown)) }
        }
    }

    /// The live places `key` stands for.
    private func places(of key: PublishedKey) -> [LivePlace] {
        switch key {
        case let .place(id):
            // Gone, or now under k (filed under its cell's key instead).
            live[id].map { [$0.place] }?.filter { privacy.publishedKey(of: $0) == key } ?? []
        case .cell:
            (small[key]?.sorted() ?? []).compactMap { live[$0]?.place }
        }
    }

    /// Publishes one key again from the live places it stands for (or drops its entry).
    private mutating func republish(_ key: PublishedKey, at now: Date) {
        if let cell = filed.removeValue(forKey: key) {
            cells[cell]?.remove(key)
            if cells[cell]?.isEmpty == true { cells[cell] = nil }
        }
        // One key's places publish as one entry.
        guard let entry = privacy.publish(places(of: key), at: now).first else { return }
        let single = GroupAssembler.single(entry, privacy: privacy).inlining(messages, of: { live[$0]?.messages }, privacy: privacy)
        let cell = Cell(entry.position)
        filed[key] = cell
        cells[cell, default: Shown()].set(key, ReadyGroup(entry: entry, group: single))
    }
}
