import FollaCore
import FollaGeo
import FollaStore
import Foundation

/// The live places around a point, read through a micro-cache shared by every query whose
/// centre falls in the same small tile.
///
/// In a dense hotspot hundreds of phones a second ask for the groups around positions a few
/// metres apart; each used to cost the same database read and the decoding of the same
/// rows. Here one read per tile and period serves them all: it covers the tile's centre out
/// to the radius (rounded up to the tile size) plus the tile's half-diagonal, a superset of
/// what any centre in the tile can see; the assembler then keeps, per request, what lies
/// within its exact radius of its exact centre. Answers are at most `period` old.
struct NearbyPlaces: Sendable {
    /// One tile: a `tileMetres` square of the plate carrée, and a radius bucket.
    struct Tile: Hashable, Sendable {
        var x: Int
        var y: Int
        var radius: Int
    }

    /// What one read found around a point.
    struct Snapshot: Sendable {
        /// Every live place within the radius (and possibly more).
        var places: [LivePlace]
        /// The newest visible messages of every place in `places` that has any, newest first,
        /// up to the most a query may inline; nil when they were not read with the places.
        var messages: [Int64: [Message]]?
    }

    let reads: PlaceReads
    let tileMetres: Double
    /// Radii beyond this are read directly: a superset that large would cost more than it
    /// saves, and a cache of kilometre-wide tiles with their messages, one per 50 m of
    /// centres, would let a client fill the memory.
    let largestCachedRadius: Double
    private let cache: MicroCache<Tile, Snapshot>?

    /// - Parameters:
    ///   - period: how stale an answer may be; zero reads the database every time.
    ///   - tileMetres: the side of a tile.
    init(reads: PlaceReads, period: Duration, tileMetres: Double = 50, largestCachedRadius: Double = 1_000) {
        self.reads = reads
        self.tileMetres = tileMetres
        self.largestCachedRadius = largestCachedRadius
        guard period > .zero else {
            cache = nil
            return
        }
        let tile = tileMetres
        cache = MicroCache(name: "groups", period: period) { key in
            let (centre, reach) = Self.cover(key, tileMetres: tile)
            let places = try await reads.nearby(centre, radius: reach)
            let talking = places.filter { $0.messageCount > 0 }.map(\.id)
            let messages = try await reads.latestMessages(perPlace: GroupQuery.messagesRange.upperBound, of: talking)
            return Snapshot(places: places, messages: messages)
        }
    }

    /// The live places within `radius` of `centre` (and possibly more); from the cache, with
    /// their messages, unless the cache is off or the radius too large for it.
    func read(around centre: Coordinate, radius: Double) async throws -> Snapshot {
        guard let cache, radius <= largestCachedRadius else {
            return Snapshot(places: try await reads.nearby(centre, radius: radius), messages: nil)
        }
        return try await cache.value(for: tile(of: centre, radius: radius))
    }

    static let metresPerDegree = 111_320.0

    func tile(of centre: Coordinate, radius: Double) -> Tile {
        let y = Int((centre.latitude * Self.metresPerDegree / tileMetres).rounded(.down))
        let x = Int((centre.longitude * Self.metresPerLonDegree(row: y, tileMetres: tileMetres) / tileMetres).rounded(.down))
        return Tile(x: x, y: y, radius: Int((radius / tileMetres).rounded(.up)))
    }

    /// Metres per degree of longitude along tile row `row` (at its middle latitude), the one
    /// scale both directions of the tiling use.
    static func metresPerLonDegree(row: Int, tileMetres: Double) -> Double {
        let latitude = (Double(row) + 0.5) * tileMetres / metresPerDegree
        return metresPerDegree * max(0.01, cos(latitude * .pi / 180))
    }

    /// The tile's centre and the radius around it that covers `radius` from any point of it.
    static func cover(_ tile: Tile, tileMetres: Double) -> (Coordinate, Double) {
        let latitude = (Double(tile.y) + 0.5) * tileMetres / metresPerDegree
        let longitude = (Double(tile.x) + 0.5) * tileMetres / metresPerLonDegree(row: tile.y, tileMetres: tileMetres)
        // Half the diagonal, with room for the plate carrée's distortion across one tile.
        let reach = Double(tile.radius) * tileMetres + tileMetres * 0.75 + 1
        return (Coordinate(latitude: latitude, longitude: longitude), reach)
    }
}
