import FollaTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// One strict JSON reader for every route, and no silent content codings: each of these is
/// a 4xx problem that says what is wrong, and writes nothing.
@Suite struct StrictInputTests {
    static let good = #""device_id":"0123456789abcdef0123456789abcdef01234567","lat":44.4938,"lon":11.343"#

    @Test(arguments: [
        ("{" + good + #","lat":45.0}"#, "duplicate key"),
        ("{" + good + ",}", "trailing comma"),
        ("{" + good + #","age":1e400,"sex":"male"}"#, "out of range"),
        ("{" + good + #","message":"\ud800"}"#, "lone surrogate"),
        ("{" + good + "} x", "after the JSON value"),
        (#"{"device_id":"0123456789abcdef0123456789abcdef01234567","lat":"44\u0000garbage","lon":11.343}"#, "must be a number"),
        // JSON carries types: what the contract calls a number must be a JSON number, text a
        // JSON string, and an empty string is a value, not an absent field.
        (#"{"device_id":"0123456789abcdef0123456789abcdef01234567","lat":"44.5","lon":11.343}"#, "must be a number, got a string"),
        (#"{"device_id":1234567890123456,"lat":44.5,"lon":11.343}"#, "must be a string, got a number"),
        ("{" + good + #","message":""}"#, "must not be empty"),
        ("{" + good + #","age":30,"sex":2}"#, "must be a string"),
    ])
    func malformedJSONIsRefusedClearly(body: String, says: String) async throws {
        try await AppFixture.run { f in
            let r = try await f.post("/v1/checkins", body)
            #expect(r.status == .badRequest, "\(body)")
            let problem = try f.json(r)
            let detail = "\(problem["detail"] ?? "") \(problem["invalid_params"] ?? "")"
            #expect(says.isEmpty || detail.contains(says), "\(detail)")
            #expect(try await f.rowCounts() == [0, 0, 0])
        }
    }

    /// A parameter sent empty means something to the client that sent it: it is refused, not
    /// An integer field's error says it wants a whole number and its range, whatever was
    /// sent; several Idempotency-Key headers are refused as several. Before (an outside
    /// fuzzer, session 23), a date sent as `before` read "must be a decimal number (like
    /// 44.4938 …)", digits beyond 2^63 "must be a whole number", and two keys "must be 1 to
    /// 255 visible ASCII characters".
    @Test func integerFieldsAndRepeatedKeysSayWhatIsWrong() async throws {
        try await AppFixture.run { f in
            let place = try await f.checkIn(dev(1), centre)
            for value in ["2026-01-01T00:00:00Z", "99999999999999999999999", "1.5", "abc"] {
                let r = try await f.get("/v1/places/\(place)/messages?before=\(value)")
                #expect(r.status == .badRequest, "\(value)")
                #expect(String(buffer: r.body).contains("before must be a whole number between 1 and"), "\(value): \(String(buffer: r.body))")
            }
            var headers: HTTPFields = [.contentType: "application/json"]
            for key in ["one", "two"] { headers.append(HTTPField(name: HTTPField.Name("Idempotency-Key")!, value: key)) }
            let twice = try await f.client.execute(uri: "/v1/checkins", method: .post, headers: headers,
                                                   body: ByteBuffer(string: "{" + Self.good + "}"))
            #expect(twice.status == .badRequest)
            #expect(String(buffer: twice.body).contains("send one Idempotency-Key header"), "\(String(buffer: twice.body))")
        }
    }

    /// read as absent; ids up to 2^63 - 1 are read exactly (not rounded through a Double).
    @Test func queryParametersAreExact() async throws {
        try await AppFixture.run { f in
            for uri in ["/v1/groups?lat=44.49&lon=11.34&radius=", "/v1/groups?lat=44.49&lon=11.34&sort=", "/v1/wall?lat=44.49&lon=11.34&after="] {
                #expect(try await f.client.execute(uri: uri, method: .get).status == .badRequest, "\(uri)")
            }
            let largest = try await f.client.execute(uri: "/v1/places/1/messages?before=9223372036854775807", method: .get)
            #expect(largest.status == .notFound)
            let beyond = try await f.client.execute(uri: "/v1/places/1/messages?before=9223372036854775808", method: .get)
            #expect(beyond.status == .badRequest)
            // An empty range of people is an empty answer, not an error.
            let empty = try await f.client.execute(uri: "/v1/groups?lat=44.49&lon=11.34&min=5&max=2", method: .get)
            #expect(empty.status == .ok && String(buffer: empty.body).contains(#""count":0"#))
            // Empty segments say nothing (they were "given more than once"); a name given
            // twice still is.
            let segments = try await f.client.execute(uri: "/v1/groups?&lat=44.49&&lon=11.34&", method: .get)
            #expect(segments.status == .ok, "\(String(buffer: segments.body))")
            let twice = try await f.client.execute(uri: "/v1/groups?lat=44.49&lon=11.34&lon=11.35", method: .get)
            #expect(twice.status == .badRequest)
        }
    }

    /// A route whose contract names no query field refuses any, naming it, before anything is
    /// written (an outside probe: they were ignored, and `POST /v1/messages?x=1` posted).
    @Test func routesWithoutQueryFieldsRefuseThem() async throws {
        try await AppFixture.run { f in
            let device = dev(77)
            let ping = #"{"device_id":"\#(device)","lat":44.4938,"lon":11.343}"#
            #expect(try await f.post("/v1/checkins", ping).status == .ok)
            let before = try await f.rowCounts()
            let json: HTTPFields = [.contentType: "application/json"]
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let requests: [(HTTPRequest.Method, String, HTTPFields, String?)] = [
                (.post, "/v1/messages?x=1", json, #"{"device_id":"\#(device)","text":"ciao"}"#),
                (.post, "/v1/messages/1/reports?x=1", json, #"{"device_id":"\#(device)"}"#),
                (.delete, "/v1/devices/\(device)?x=1", [:], nil),
                (.post, "/sendData.php?x=1", form, "udid=\(device)&latitude=44.5&longitude=11.3"),
                (.post, "/v1/admin/messages/1/hide?x=1", [.authorization: "Bearer \(adminToken)"], nil),
                (.get, "/healthz?x=1", [:], nil),
                (.get, "/openapi.yaml?x=1", [:], nil),
                (.get, "/v1/venues/piazza/wall/events?x=1", [:], nil),
            ]
            for (method, uri, headers, body) in requests {
                let r = try await f.client.execute(uri: uri, method: method, headers: headers,
                                                   body: body.map { ByteBuffer(string: $0) })
                #expect(r.status == .badRequest && String(buffer: r.body).contains(#""name":"x""#)
                        && String(buffer: r.body).contains("takes none"),
                        "\(method) \(uri): \(r.status) \(String(buffer: r.body))")
            }
            #expect(try await f.rowCounts() == before)
            #expect(try await f.client.execute(uri: "/healthz", method: .get).status == .ok)
            #expect(try await f.client.execute(uri: "/v1/devices/\(device)", method: .delete).status == .noContent)
        }
    }

    /// PostgreSQL raises on float underflow: a position like 5e-324 was a 500.
    @Test func subnormalCoordinatesAreAccepted() async throws {
        try await AppFixture.run { f in
            let r = try await f.post("/v1/checkins?include=groups", #"{"device_id":"0123456789abcdef0123456789abcdef01234567","lat":-1.1,"lon":5e-324}"#)
            #expect(r.status == .ok, "\(String(buffer: r.body))")
            let legacy = try await f.post("/sendData.php", "udid=0123456789abcdef0123456789abcdef01234568&latitude=5e-324&longitude=-1.1",
                                          contentType: "application/x-www-form-urlencoded")
            #expect(legacy.status == .ok)
        }
    }

    @Test func venuesUseTheSameReader() async throws {
        try await AppFixture.run { f in
            let r = try await f.adminJSON(.post, "/v1/admin/venues",
                #"{"slug":"a","name":"A","name":"B","centre":{"lat":44.49,"lon":11.34},"radius_m":40}"#)
            #expect(r.status == .badRequest)
            #expect((try f.json(r)["detail"] as? String)?.contains("duplicate key") == true)
        }
    }

    @Test(arguments: ["gzip", "br", "deflate"])
    func compressedBodiesAre415(coding: String) async throws {
        try await AppFixture.run { f in
            let r = try await f.client.execute(uri: "/v1/checkins", method: .post,
                                               headers: [.contentType: "application/json", .contentEncoding: coding],
                                               body: ByteBuffer(string: "{" + Self.good + "}"))
            #expect(r.status == .unsupportedMediaType)
            #expect(try await f.rowCounts() == [0, 0, 0])
        }
    }

    /// Percent-encoding names the same thing as the characters it encodes (RFC 3986 §2.1):
    /// `l%61t` is `lat` and `/v1/places/%31` is place 1 (both were refused as unknown or not
    /// a number); a broken encoding is a 400 naming the field.
    @Test func percentEncodedNamesAreTheirCharacters() async throws {
        try await AppFixture.run { f in
            let encoded = try await f.client.execute(uri: "/v1/groups?l%61t=44.49&lon=11.34", method: .get)
            #expect(encoded.status == .ok, "\(String(buffer: encoded.body))")
            #expect(String(buffer: encoded.body).contains(#""lat":44.49"#))
            let twice = try await f.client.execute(uri: "/v1/groups?lat=44.49&l%61t=44.5&lon=11.34", method: .get)
            #expect(twice.status == .badRequest && String(buffer: twice.body).contains("more than once"))
            let xml = try await f.client.execute(uri: "/v1/groups?lat=44.49&lon=11.34&f%6Frmat=xml", method: .get)
            #expect(xml.headers[.contentType]?.hasPrefix("application/xml") == true)
            let broken = try await f.client.execute(uri: "/v1/groups?l%zzt=44.49&lon=11.34", method: .get)
            #expect(broken.status == .badRequest)

            #expect(try await f.client.execute(uri: "/v1/places/%31", method: .get).status == .notFound)
            // A NUL reached PostgreSQL in a venue slug (a 500).
            #expect(try await f.client.execute(uri: "/wall/%00", method: .get).status == .badRequest)
            #expect(try await f.client.execute(uri: "/v1/venues/a%00b/wall", method: .get).status == .badRequest)
            let badID = try await f.client.execute(uri: "/v1/places/%zz", method: .get)
            #expect(badID.status == .badRequest && String(buffer: badID.body).contains(#""name":"place_id""#))
            let device = dev(78)
            #expect(try await f.post("/v1/checkins", #"{"device_id":"\#(device)","lat":44.4938,"lon":11.343}"#).status == .ok)
            let spelled = device.utf8.map { String(format: "%%%02X", $0) }.joined()
            #expect(try await f.client.execute(uri: "/v1/devices/\(spelled)", method: .delete).status == .noContent)
            #expect(try await f.rowCounts()[0] == 0)
        }
    }

    /// A resource with one representation says 406 to an `Accept` that excludes it, as the
    /// negotiated ones do (it answered its one type regardless).
    @Test func oneRepresentationResourcesHonourAccept() async throws {
        try await AppFixture.run { f in
            let cases: [(String, String, HTTPResponse.Status)] = [
                ("/v1/places/1/messages", "application/xml", .notAcceptable),
                ("/v1/places/1/messages", "application/*;q=0.5, text/html", .notFound),
                ("/v1/tiles/1/1/1.mvt", "application/json", .notAcceptable),
                ("/v1/tiles/1/1/1.mvt", "*/*", .ok),
                ("/v1/tiles/1/1/1.mvt", "application/vnd.mapbox-vector-tile;q=0", .notAcceptable),
                ("/v1/venues/none/wall/events", "application/json", .notAcceptable),
                ("/v1/venues/none/wall/events", "text/event-stream", .notFound),
            ]
            for (uri, accept, status) in cases {
                let r = try await f.client.execute(uri: uri, method: .get, headers: [.accept: accept])
                #expect(r.status == status, "\(uri) with \(accept): \(r.status) \(String(buffer: r.body))")
                if status == .notAcceptable { #expect(String(buffer: r.body).contains("not-acceptable")) }
            }
        }
    }
}
