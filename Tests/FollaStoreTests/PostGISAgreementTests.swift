import FollaCore
import FollaGeo
import FollaStore
import FollaTestSupport
import Foundation
import PostgresNIO
import PropertyBased
import Testing

/// Our read-side geometry agrees with PostGIS on the same data.
@Suite struct PostGISAgreementTests {
    /// Clustering partitions equal `ST_ClusterDBSCAN(eps, minpoints => 1)` in the same
    /// azimuthal equidistant projection, for random point sets and ε.
    @Test func clusteringEqualsSTClusterDBSCAN() async throws {
        try await TestCluster.withDatabase { client, _ in
            await propertyCheck(
                count: 40,
                input: Gen.double(in: -150...150).array(of: 2...120), Gen.double(in: 2...60)
            ) { offsets, eps in
                let centre = bologna
                let points = stride(from: 0, to: offsets.count - 1, by: 2).map {
                    Geodesic.wgs84.destination(from: Geodesic.wgs84.destination(from: centre, bearing: 0, distance: offsets[$0]),
                                               bearing: 90, distance: offsets[$0 + 1])
                }
                guard let plane = try? LocalProjection(centre: centre),
                      let planar = try? points.map({ try plane.forward($0) }),
                      let ours = try? Clustering.partition(planar, epsilon: eps, context: GeometryContext())
                else { Issue.record("geometry failed"); return }
                let proj = "+proj=aeqd +lat_0=\(centre.latitude) +lon_0=\(centre.longitude) +datum=WGS84 +units=m +no_defs"
                let lats = points.map(\.latitude), lons = points.map(\.longitude)
                var byCluster: [Int: [Int]] = [:]
                do {
                    let rows = try await client.query("""
                        SELECT (i - 1)::integer, ST_ClusterDBSCAN(
                                 ST_Transform(ST_SetSRID(ST_MakePoint(lon, lat), 4326), \(proj)::text),
                                 eps => \(eps)::float8, minpoints => 1) OVER (ORDER BY i)
                        FROM unnest(\(lats)::float8[], \(lons)::float8[]) WITH ORDINALITY AS t(lat, lon, i)
                        """, logger: TestCluster.logger)
                    for try await (i, c) in rows.decode((Int, Int).self) { byCluster[c, default: []].append(i) }
                } catch {
                    Issue.record("PostGIS: \(String(reflecting: error))")
                    return
                }
                let theirs = byCluster.values.map { $0.sorted() }.sorted { $0[0] < $1[0] }
                #expect(ours == theirs, "eps \(eps), \(points.count) points")
            }
        }
    }

    /// The search for places near a point is index-backed (the GiST index of shown anchors,
    /// `SQL/0029`: only places shown live have one).
    @Test func nearbySearchUsesTheSpatialIndex() async throws {
        try await TestCluster.withDatabase { client, _ in
            _ = try await client.query("""
                INSERT INTO place (anchor, people, counted, created_at, last_activity)
                SELECT ST_SetSRID(ST_MakePoint(11.30 + random() * 0.07, 44.47 + random() * 0.05), 4326)::geography,
                       n, n, now(), now()
                FROM (SELECT 1 + (random() * 5)::int AS n FROM generate_series(1, 10000)) s
                """, logger: TestCluster.logger)
            _ = try await client.query("ANALYZE place", logger: TestCluster.logger)
            let sql = PlaceReads.nearbySQL(lat: 44.4938, lon: 11.343, radius: 200)
            var plan: [String] = []
            for try await line in try await client.query(PostgresQuery(unsafeSQL: "EXPLAIN " + sql.sql, binds: sql.binds),
                                                         logger: TestCluster.logger).decode(String.self) {
                plan.append(line)
            }
            #expect(plan.joined(separator: "\n").contains("Index Scan on place_shown_anchor"), "\(plan.joined(separator: "\n"))")
            #expect(!plan.joined().contains("Seq Scan on place"))
        }
    }
}
