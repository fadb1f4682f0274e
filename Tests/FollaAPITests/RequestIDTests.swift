import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Every answer carries an `X-Request-Id` a client can quote: its own when plausible, a
/// fresh one otherwise, on errors as on successes.
@Suite struct RequestIDTests {
    static let header = HTTPField.Name("X-Request-Id")!

    @Test func generatedWhenAbsentAndFreshEachTime() async throws {
        try await AppFixture.run { f in
            var seen: Set<String> = []
            for uri in ["/healthz", "/v1/groups?lat=44.49&lon=11.34", "/v1/groups?lat=444&lon=11", "/v1/nothing"] {
                let r = try await f.client.execute(uri: uri, method: .get)
                let id = try #require(r.headers[Self.header], "\(uri): \(r.status)")
                #expect(id.count == 32 && id.allSatisfy(\.isHexDigit), "\(id)")
                seen.insert(id)
            }
            #expect(seen.count == 4)
        }
    }

    @Test func aPlausibleIdIsEchoedAndAnythingElseReplaced() async throws {
        try await AppFixture.run { f in
            let mine = "3f2a9c1e-7b4d-4e8a-9f00-0123456789ab"
            let echoed = try await f.client.execute(uri: "/v1/groups?lat=44.49&lon=11.34", method: .get, headers: [Self.header: mine])
            #expect(echoed.headers[Self.header] == mine)
            for bad in [String(repeating: "a", count: 129), "id with spaces", "x\"y", "é"] {
                let r = try await f.client.execute(uri: "/healthz", method: .get, headers: [Self.header: bad])
                let id = try #require(r.headers[Self.header])
                #expect(id != bad && id.count == 32, "\(bad) -> \(id)")
            }
            // Also on a problem answer from a write.
            let refused = try await f.post("/v1/checkins", #"{"device_id":"x","lat":1,"lon":1}"#)
            #expect(refused.status == .badRequest && refused.headers[Self.header]?.count == 32)
        }
    }
}
