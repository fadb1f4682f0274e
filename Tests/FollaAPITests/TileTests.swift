import FollaCore
import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /v1/tiles/{z}/{x}/{y}.mvt`, decoded by an independent decoder (mapbox-vector-tile
/// from PyPI, in the project's .venv) and compared with the GeoJSON answer for the same box.
@Suite struct TileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// XYZ tile of a position at zoom z.
    static func tile(_ c: Coordinate, z: Int) -> (x: Int, y: Int) {
        let n = Double(1 << z)
        let s = sin(c.latitude * .pi / 180)
        return (Int((c.longitude + 180) / 360 * n), Int((0.5 - log((1 + s) / (1 - s)) / (4 * .pi)) * n))
    }

    @Test func tilesHoldWhatTheGeoJSONAnswerHolds() async throws {
        try await AppFixture.run(k: 1) { f in
            var rng = SeededRandom(seed: 5)
            var n = 1
            for _ in 0..<12 {
                let spot = Coordinate(latitude: 44.4938 + Double.random(in: -0.01...0.01, using: &rng),
                                      longitude: 11.3426 + Double.random(in: -0.012...0.012, using: &rng))
                let people = Int.random(in: 1...5, using: &rng)
                _ = try await f.crowd(spot, people: people, startingAt: n)
                n += people
            }
            _ = try await f.client.execute(uri: "/v1/admin/venues/piazza", method: .put,
                                           headers: [.authorization: "Bearer \(adminToken)", .contentType: "application/json"],
                                           body: ByteBuffer(string: #"{"name":"Piazza","centre":{"lat":44.4938,"lon":11.3426},"radius_m":80}"#))
            for z in [11, 13, 15, 17] {
                let (x, y) = Self.tile(Coordinate(latitude: 44.4938, longitude: 11.3426), z: z)
                let tile = try await f.get("/v1/tiles/\(z)/\(x)/\(y).mvt")
                #expect(tile.status == .ok)
                #expect(tile.headers[.contentType] == "application/vnd.mapbox-vector-tile")
                #expect(tile.headers[.cacheControl] == "public, max-age=1")
                let tag = try #require(tile.headers[.eTag])
                #expect(try await f.get("/v1/tiles/\(z)/\(x)/\(y).mvt", ifNoneMatch: tag).status == .notModified)
                let v = try Tile(z: z, x: x, y: y).viewport()
                let answer = try await f.get("/v1/groups?bbox=\(v.minLongitude),\(v.minLatitude),\(v.maxLongitude),\(v.maxLatitude)&zoom=\(z)&format=geojson")
                #expect(answer.status == .ok)
                let dir = FileManager.default.temporaryDirectory
                let tileFile = dir.appendingPathComponent("folla-tile-\(UUID().uuidString).mvt")
                let answerFile = dir.appendingPathComponent("folla-tile-\(UUID().uuidString).geojson")
                try Data(buffer: tile.body).write(to: tileFile)
                try Data(buffer: answer.body).write(to: answerFile)
                defer { try? FileManager.default.removeItem(at: tileFile); try? FileManager.default.removeItem(at: answerFile) }
                let (status, output) = try await Self.python([Self.root.appendingPathComponent("Tests/Map/tile_check.py").path,
                                                        tileFile.path, answerFile.path, "\(z)", "\(x)", "\(y)"])
                #expect(status == 0, "zoom \(z): \(output)")
                #expect(output.contains("'venues'"), "\(output)")
            }
        }
    }

    @Test(arguments: [("/v1/tiles/23/0/0.mvt", "z"), ("/v1/tiles/3/0/-1.mvt", "y"), ("/v1/tiles/3/0/0.mvt?zoom=1", "zoom")])
    func malformedTilesAre400(uri: String, field: String) async throws {
        try await AppFixture.run { f in
            let r = try await f.get(uri)
            #expect(r.status == .badRequest, "\(uri)")
            #expect((try f.json(r)["invalid_params"] as? [[String: Any]])?.first?["name"] as? String == field)
        }
    }

    /// Past the world's edge there is no tile: 404. Zoom 0 and 1 tiles (antipodal boxes)
    /// are tiles like any other.
    @Test func tilesPastTheEdgeAre404AndWorldTilesWork() async throws {
        try await AppFixture.run { f in
            for uri in ["/v1/tiles/3/8/0.mvt", "/v1/tiles/0/0/1.mvt"] {
                let r = try await f.get(uri)
                #expect(r.status == HTTPResponse.Status.notFound, "\(uri)")
            }
            for uri in ["/v1/tiles/0/0/0.mvt", "/v1/tiles/1/1/1.mvt", "/v1/tiles/1/0/0.mvt"] {
                let r = try await f.get(uri)
                #expect(r.status == HTTPResponse.Status.ok, "\(uri)")
            }
        }
    }

    /// A venue across the antimeridian is drawn where it lies, a sliver at each edge of the
    /// world, not as a band around it. Before (an outside fuzzer, session 23), its plain
    /// geometry spanned every longitude, and it filled the tiles at longitude 0.
    @Test func aVenueAcrossTheAntimeridianStaysAtTheWorldsEdge() async throws {
        try await AppFixture.run { f in
            let r = try await f.adminJSON(.post, "/v1/admin/venues", #"""
                {"slug":"am1","name":"Taveuni","area":{"type":"Polygon","coordinates":[[[179.9995,0],[-179.9995,0],[-179.9995,0.001],[179.9995,0.001],[179.9995,0]]]}}
                """#)
            #expect(r.status == .created, "\(String(buffer: r.body))")
            let (x, y) = Self.tile(Coordinate(latitude: 0.0005, longitude: 0), z: 10)
            let middle = try await f.get("/v1/tiles/10/\(x)/\(y).mvt")
            #expect(middle.status == .ok && middle.body.readableBytes == 0, "the venue is drawn at longitude 0")
            for edge in [1023, 0] {
                let tile = try await f.get("/v1/tiles/10/\(edge)/\(y).mvt")
                #expect(String(decoding: tile.body.readableBytesView, as: UTF8.self).contains("am1"), "tile \(edge)")
            }
        }
    }

    static func python(_ arguments: [String]) async throws -> (Int32, String) {
        let r = try await ExternalProcess.run(root.appendingPathComponent(".venv/bin/python").path, arguments)
        return (r.status, r.output + r.errors)
    }
}

extension AppFixture {
    func get(_ uri: String, ifNoneMatch: String) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: ifNoneMatch])
    }
}
