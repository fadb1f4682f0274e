import FollaCore
import FollaGeo
import FollaStore
import NIOCore

/// Crowds on a map: the clusters in a viewport at a zoom, a cluster's children, and the
/// zoom at which it splits; all from one city-wide read model (`MapSnapshot`) that is at
/// most `period` old.
public struct MapService: Sendable {
    /// Viewports answering more than this many clusters are refused (zoom out or narrow the box).
    public static let maxClusters = 10_000
    private let snapshots: MapReadModel
    private let tiles: MicroCache<Tile, ByteBuffer>
    /// Races a viewport's answer against the database's outages (see ``clusters(in:)``); nil: none.
    private let database: DatabaseMonitor?

    /// - Parameters:
    ///   - places: where live places are read.
    ///   - encoder: writes vector tiles.
    ///   - privacy: what is published.
    ///   - period: staleness bound of the read model and of a tile (one city-wide read per
    ///     period at most; one encoding per tile and period).
    ///   - database: the monitor that releases a viewport's answer waiting on the database
    ///     when it goes down; nil: none (tests).
    public init(places: PlaceReads, encoder: TileEncoder, privacy: PrivacyPolicy, period: Duration, database: DatabaseMonitor? = nil) {
        self.database = database
        let snapshots = MapReadModel(period: period) {
            MapSnapshot(places: try await places.allLive(), privacy: privacy)
        }
        self.snapshots = snapshots
        tiles = MicroCache(name: "tiles", period: period) { tile in
            let clusters: [MapCluster]
            do {
                clusters = try Self.clusters(in: tile.viewport(), of: try await snapshots.snapshot())
            } catch MapError.tooMany(let n) {
                throw FieldError("z", "the tile holds \(n) clusters; ask for a deeper zoom")
            }
            return try await encoder.tile(z: tile.z, x: tile.x, y: tile.y, clusters: clusters)
        }
    }

    public func snapshot() async throws -> MapSnapshot {
        try await snapshots.snapshot()
    }

    /// The clusters inside the viewport, most people first.
    ///
    /// Raced against the database's outages here: viewports are asked on the groups route
    /// (`/v1/groups?bbox=…`), which is not behind the route-level gate (its point answers
    /// mostly come from memory, see `GroupService.groups(for:)`).
    public func clusters(in viewport: Viewport) async throws -> [MapCluster] {
        @Sendable func answer() async throws -> [MapCluster] { try Self.clusters(in: viewport, of: try await snapshot()) }
        guard let database else { return try await answer() }
        return try await database.whileAvailable(answer)
    }

    /// A vector tile of the clusters (and venues) in `tile`, at most `period` old.
    public func tile(_ tile: Tile) async throws -> ByteBuffer {
        try await tiles.value(for: tile)
    }

    static func clusters(in viewport: Viewport, of snapshot: MapSnapshot) throws(MapError) -> [MapCluster] {
        let west = ClusterIndex.mercator(Coordinate(latitude: viewport.maxLatitude, longitude: viewport.minLongitude))
        let east = ClusterIndex.mercator(Coordinate(latitude: viewport.minLatitude, longitude: viewport.maxLongitude))
        // An antimeridian box keeps minX > maxX; the index reads that as wrapping.
        let nodes = snapshot.index.nodes(zoom: viewport.zoom512, minX: west.x, minY: west.y, maxX: east.x, maxY: east.y)
        guard nodes.count <= Self.maxClusters else { throw .tooMany(nodes.count) }
        let zoom = min(viewport.zoom512, snapshot.index.maxZoom + 1)
        // Ties (cells have no id) by position (`Coordinate+Order`), as every list.
        return nodes.map { snapshot.cluster($0, zoom: zoom) }
            .sorted { ($1.people, $0.clusterID ?? $0.placeID ?? .max, $0.position) < ($0.people, $1.clusterID ?? $1.placeID ?? .max, $1.position) }
    }

    /// What a cluster splits into one zoom deeper, and its expansion zoom; nil if no such
    /// cluster exists now (ids name a cluster of the current read model).
    public func children(of id: Int64) async throws -> (children: [MapCluster], expansionZoom: Int)? {
        let snapshot = try await self.snapshot()
        guard let (nodes, zoom) = snapshot.index.children(of: id), let expansion = snapshot.index.expansionZoom(of: id) else { return nil }
        return (nodes.map { snapshot.cluster($0, zoom: zoom) }, expansion)
    }
}

public enum MapError: Error {
    /// The viewport holds more clusters than one answer may.
    case tooMany(Int)
}
