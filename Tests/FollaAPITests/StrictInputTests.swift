import FollaTestSupport
import Foundation
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
        (#"{"device_id":"0123456789abcdef0123456789abcdef01234567","lat":"44\u0000garbage","lon":11.343}"#, "decimal"),
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
}
