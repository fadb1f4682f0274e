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
    private struct Cell: Hashable {
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
    }

    /// A live place and its newest visible messages (nil when none).
    private struct Live {
        var place: LivePlace
        var messages: [Message]?
    }

    let privacy: PrivacyPolicy
    /// How many messages each ready group carries: the most a query may inline.
    let messages: Int
    private var live: [Int64: Live] = [:]
    /// The small places of each cell key.
    private var small: [PublishedKey: Set<Int64>] = [:]
    /// The entries filed by cell: a read walks its cells and hashes nothing per entry.
    private var cells: [Cell: [PublishedKey: ReadyGroup]] = [:]
    private var filed: [PublishedKey: Cell] = [:]

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
    mutating func apply(changed: [LivePlace], gone: [Int64], messages: [Int64: [Message]]) {
        var touched: Set<PublishedKey> = []
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
        for key in touched { republish(key) }
    }

    /// Publishes one key again from the live places it stands for (or drops its entry).
    private mutating func republish(_ key: PublishedKey) {
        if let cell = filed.removeValue(forKey: key) {
            cells[cell]?[key] = nil
            if cells[cell]?.isEmpty == true { cells[cell] = nil }
        }
        let places: [LivePlace]
        switch key {
        case let .place(id):
            // Gone, or now under k (filed under its cell's key instead).
            places = live[id].map { [$0.place] }?.filter { privacy.publishedKey(of: $0) == key } ?? []
        case .cell:
            places = (small[key]?.sorted() ?? []).compactMap { live[$0]?.place }
        }
        // One key's places publish as one entry.
        guard let entry = privacy.publish(places).first else { return }
        let single = GroupAssembler.single(entry, privacy: privacy).inlining(messages, of: { live[$0]?.messages }, privacy: privacy)
        let cell = Cell(entry.position)
        filed[key] = cell
        cells[cell, default: [:]][key] = ReadyGroup(entry: entry, group: single)
    }

    /// The entries within `radius` metres of `centre`, and those within about 5 % more (what
    /// a `GeodesicDisc` cannot rule out; the assembler keeps what lies within its radius),
    /// each with its own group; nil when the box comes within a degree of a pole or crosses
    /// the antimeridian.
    /// - Parameter messagesByPlace: whether to hand on each place's messages too (clustered
    ///   groups merge them their own way).
    func around(_ centre: Coordinate, radius: Double, messagesByPlace: Bool) -> NearbyPlaces.Snapshot? {
        let metresPerDegree = 111_320.0
        let dLat = radius / metresPerDegree + Cell.degrees
        // Near a pole the longitude scale below is unreliable.
        guard abs(centre.latitude) + dLat < 89 else { return nil }
        let dLon = radius / (metresPerDegree * cos((abs(centre.latitude) + dLat) * .pi / 180)) + Cell.degrees
        guard abs(centre.longitude) + dLon < 180 else { return nil }
        let low = Cell(Coordinate(latitude: centre.latitude - dLat, longitude: centre.longitude - dLon))
        let high = Cell(Coordinate(latitude: centre.latitude + dLat, longitude: centre.longitude + dLon))
        let cellCount = (Int(high.row) - Int(low.row) + 1) * (Int(high.column) - Int(low.column) + 1)
        let disc = GeodesicDisc(centre: centre, radius: radius)
        var ready: [ReadyGroup] = []
        var perPlace: [Int64: [Message]]? = messagesByPlace ? [:] : nil
        func take(_ shown: [PublishedKey: ReadyGroup]) {
            for r in shown.values {
                // The cells' box is several times the circle's area; what is clearly outside
                // is not handed on (every later step costs per entry).
                guard disc.mayContain(r.entry.position) else { continue }
                ready.append(r)
                if messagesByPlace, r.entry.messageCount > 0 {
                    for id in r.entry.sources { perPlace?[id] = live[id]?.messages }
                }
            }
        }
        if cellCount > cells.count {
            // A box wider than the filled cells: look at every filled cell instead.
            for (cell, shown) in cells
            where (low.row...high.row).contains(cell.row) && (low.column...high.column).contains(cell.column) {
                take(shown)
            }
        } else {
            for row in low.row...high.row {
                for column in low.column...high.column {
                    if let shown = cells[Cell(row: row, column: column)] { take(shown) }
                }
            }
        }
        return NearbyPlaces.Snapshot(found: .ready(ready), messages: perPlace)
    }
}
