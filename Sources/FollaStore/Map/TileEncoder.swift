import FollaCore
import Logging
import NIOCore
import PostgresNIO

/// Mapbox Vector Tiles from PostGIS (`ST_AsMVT`, `ST_AsMVTGeom`): the clusters a map draws
/// in a tile as a `groups` layer of points, and the venues' areas as a `venues` layer of
/// polygons. PostGIS does the encoding (clipping, the tile's integer grid, protobuf), so no
/// hand-written encoder; the clusters come from the map's read model as arrays.
public struct TileEncoder: Sendable {
    /// Where the statement runs: the replica when there is one (it reads only venues).
    public let reads: ReadDatabase
    public let logger: Logger

    public init(reads: ReadDatabase, logger: Logger) {
        self.reads = reads
        self.logger = logger
    }

    /// The tile's layers in one statement (MVT layers concatenate as bytes). Nulls go in as
    /// -1 and come out as absent properties.
    static func sql(z: Int, x: Int, y: Int, clusters: [MapCluster]) -> PostgresQuery {
        let lons = clusters.map(\.position.longitude), lats = clusters.map(\.position.latitude)
        let people = clusters.map { Int64($0.people) }, places = clusters.map { Int64($0.places) }
        let clusterIDs = clusters.map { $0.clusterID ?? -1 }, placeIDs = clusters.map { $0.placeID ?? -1 }
        let expansion = clusters.map { Int64($0.expansionZoom ?? -1) }
        let coarsened = clusters.map(\.isCoarsened)
        return """
            WITH envelope AS (SELECT ST_TileEnvelope(\(z)::integer, \(x)::integer, \(y)::integer) AS box),
            groups AS (
                SELECT ST_AsMVTGeom(ST_Transform(ST_SetSRID(ST_MakePoint(u.lon, u.lat), 4326), 3857), e.box, 4096, 64, true) AS geom,
                       u.people, u.places, (u.cluster_id >= 0) AS cluster, NULLIF(u.cluster_id, -1) AS cluster_id,
                       NULLIF(u.place_id, -1) AS place_id, NULLIF(u.expansion_zoom, -1) AS expansion_zoom, u.coarsened
                FROM envelope e,
                     unnest(\(lons)::float8[], \(lats)::float8[], \(people)::int8[], \(places)::int8[], \(clusterIDs)::int8[],
                            \(placeIDs)::int8[], \(expansion)::int8[], \(coarsened)::bool[])
                       AS u(lon, lat, people, places, cluster_id, place_id, expansion_zoom, coarsened)
            ),
            venues AS (
                SELECT ST_AsMVTGeom(ST_Transform(v.flat, 3857), e.box, 4096, 64, true) AS geom, v.slug, v.name
                FROM (
                    -- An area that crosses the antimeridian (its longitudes span more than half
                    -- the world as plain geometry) is cut there, its two parts on either side:
                    -- taken as it is, it was a band around the whole world in every tile.
                    SELECT slug, name, CASE WHEN ST_XMax(a) - ST_XMin(a) > 180
                                            THEN ST_WrapX(ST_ShiftLongitude(a), 180, -360) ELSE a END AS flat
                    FROM (SELECT slug, name, area::geometry AS a FROM venue) plain
                ) v, envelope e
                -- As geometry: a tile's box as geography can have antipodal edges (zoom 0 and 1).
                -- Venues are few; no index needed.
                WHERE v.flat && ST_Transform(e.box, 4326)
            )
            SELECT coalesce((SELECT ST_AsMVT(g, 'groups', 4096, 'geom') FROM groups g WHERE g.geom IS NOT NULL), ''::bytea)
                || coalesce((SELECT ST_AsMVT(v, 'venues', 4096, 'geom') FROM venues v WHERE v.geom IS NOT NULL), ''::bytea) AS tile
            """
    }

    /// - Parameters:
    ///   - z, x, y: the tile (XYZ scheme, y down from the north).
    ///   - clusters: what the map shows in and around it.
    /// - Returns: the tile's protobuf bytes (empty when nothing is in it).
    public func tile(z: Int, x: Int, y: Int, clusters: [MapCluster]) async throws -> ByteBuffer {
        let logger = logger
        return try await reads.run { client in
            try await client.rows(Self.sql(z: z, x: x, y: y, clusters: clusters), logger: logger).first?.decode(ByteBuffer.self)
                ?? ByteBuffer()
        }
    }
}
