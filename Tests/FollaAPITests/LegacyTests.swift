import FollaCore
import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The original app's endpoints, checked against the request/response pairs in fixtures/legacy/.
@Suite struct LegacyTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/legacy")

    func fixture(_ name: String) throws -> String {
        try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
    }

    /// `sendData.php` goes through the same write path as `/v1/checkins`: blocked words and
    /// the per-device message limit hold there too (it skipped both before).
    @Test func sendDataKeepsEveryMessageRule() async throws {
        try await AppFixture.run(messageRate: 5) { f in
            let form = "udid=\(udidA)&latitude=44.4938&longitude=11.343&message="
            let blocked = try await f.post("/sendData.php", form + "che%20truffa", contentType: "application/x-www-form-urlencoded")
            #expect(blocked.status == .badRequest)
            #expect(try await f.rowCounts() == [0, 0, 0])
            for i in 1...5 {
                let r = try await f.post("/sendData.php", form + "ciao\(i)", contentType: "application/x-www-form-urlencoded")
                #expect(r.status == .ok)
            }
            let sixth = try await f.post("/sendData.php", form + "ciao6", contentType: "application/x-www-form-urlencoded")
            #expect(sixth.status == .tooManyRequests && sixth.headers[.retryAfter] != nil)
            #expect(try await f.rowCounts()[2] == 5)
        }
    }

    @Test func sendDataAndGetMessageMatchTheFixtures() async throws {
        try await AppFixture.run { f in
            // Place ids are opaque (SQL/0021): the fixtures name the first place founded 1 and
            // the second 2, and the answers are read with the real ids put back to those.
            var names: [Int: Int] = [:]
            func named(_ xml: String) -> String {
                names.reduce(xml) { $0.replacingOccurrences(of: "<id>\($1.key)</id>", with: "<id>\($1.value)</id>") }
            }
            for step in 1...3 {
                let request = try fixture("senddata-\(step).request").trimmingCharacters(in: .whitespacesAndNewlines)
                let r = try await f.post("/sendData.php", request, contentType: "application/x-www-form-urlencoded")
                #expect(r.status == .ok)
                #expect(r.headers[.contentType]?.hasPrefix("text/xml") == true)
                if step == 1 { names[try await f.placeID(near: Coordinate(latitude: 44.4938, longitude: 11.343))] = 1 }
                if step == 3 { names[try await f.placeID(near: Coordinate(latitude: 44.4965, longitude: 11.343))] = 2 }
                #expect(named(String(buffer: r.body)) == (try fixture("senddata-\(step).response.xml")), "step \(step)")
                // A minute apart, as the fixtures' timestamps are: within a minute, messages
                // come in no order of posting.
                f.clock.advance(by: 60)
            }
            let first = try #require(names.first { $0.value == 1 }?.key)
            let request = try fixture("getmessage.request").trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(request == "id=1")
            let r = try await f.post("/getMessage.php", "id=\(first)", contentType: "application/x-www-form-urlencoded")
            // Message ids are opaque too (SQL/0023): the fixture names the first message 1 and
            // the second 2.
            for row in try await f.db.query("SELECT id, body FROM message", logger: TestCluster.logger).collect() {
                let (id, body) = try row.decode((Int, String).self)
                names[id] = body == "Ciao a tutti" ? 1 : 2
            }
            #expect(named(String(buffer: r.body)) == (try fixture("getmessage.response.xml")))
        }
    }

    @Test func legacyBadInputNamesTheOriginalField() async throws {
        try await AppFixture.run { f in
            let r = try await f.post("/sendData.php", "udid=0123456789abcdef0123&latitude=95&longitude=11",
                                     contentType: "application/x-www-form-urlencoded")
            #expect(r.status == .badRequest)
            #expect((try f.json(r)["invalid_params"] as? [[String: Any]])?.first?["name"] as? String == "latitude")
            #expect(try await f.post("/getMessage.php", "id=x", contentType: "application/x-www-form-urlencoded").status == .badRequest)
            // 0 is sendData.php's id for a cell of small groups: no messages, not a 400.
            let zero = try await f.post("/getMessage.php", "id=0", contentType: "application/x-www-form-urlencoded")
            #expect(zero.status == .ok && String(buffer: zero.body).contains("<table") && !String(buffer: zero.body).contains("<row>"))
            #expect(try await f.rowCounts() == [0, 0, 0])
        }
    }

    /// The original endpoints take what the app sends and the contract declares: a form. A
    /// JSON or XML body, or none named, is a 415 that writes nothing (both were read before).
    @Test func legacyEndpointsTakeFormsOnly() async throws {
        try await AppFixture.run { f in
            let device = "0123456789abcdef0123456789abcdef01234567"
            let bodies: [(String, String, String?)] = [
                ("/sendData.php", #"{"udid":"\#(device)","latitude":44.4938,"longitude":11.343}"#, "application/json"),
                ("/sendData.php", "<c><udid>\(device)</udid><latitude>44.4938</latitude><longitude>11.343</longitude></c>", "application/xml"),
                ("/sendData.php", "udid=\(device)&latitude=44.4938&longitude=11.343", nil),
                ("/getMessage.php", #"{"id":1}"#, "application/json"),
                ("/getMessage.php", "<c><id>1</id></c>", "text/xml"),
            ]
            for (path, body, type) in bodies {
                let r = try await f.client.execute(uri: path, method: .post, headers: type.map { [.contentType: $0] } ?? [:],
                                                   body: ByteBuffer(string: body))
                #expect(r.status == .unsupportedMediaType, "\(path) \(type ?? "none"): \(r.status)")
                #expect(String(buffer: r.body).contains("send application/x-www-form-urlencoded\""), "\(String(buffer: r.body))")
            }
            #expect(try await f.rowCounts() == [0, 0, 0])
            let form = try await f.post("/sendData.php", "udid=\(device)&latitude=44.4938&longitude=11.343",
                                        contentType: "application/x-www-form-urlencoded")
            #expect(form.status == .ok)
        }
    }
}

@Suite struct OpenAPITests {
    /// Every route the router serves is documented, with the same method.
    @Test func everyRouteIsDocumented() async throws {
        let doc = try await AppFixture.document()
        for route in try await AppFixture.routes() {
            var path = route.path
            // Hummingbird writes parameters as ":name"; OpenAPI as "{name}".
            path = path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            let pathLine = "  /" + path.drop(while: { $0 == "/" }) + ":"
            let section = try #require(doc.range(of: "\n" + pathLine + "\n"), "\(route.method) \(path) is not in openapi.yaml")
            let rest = doc[section.upperBound...]
            let end = rest.range(of: "\n  /")?.lowerBound ?? rest.range(of: "\ncomponents:")?.lowerBound ?? rest.endIndex
            #expect(rest[..<end].contains("    \(route.method.rawValue.lowercased()):"), "\(route.method) \(path) is not documented")
        }
    }

    @Test func servedDocumentIsOpenAPI31() async throws {
        try await AppFixture.run { f in
            let r = try await f.get("/openapi.yaml")
            #expect(r.status == .ok)
            #expect(String(buffer: r.body).hasPrefix("openapi: 3.1.0"))
        }
    }
}
