@testable import FollaAPI
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

    /// Ids are drawn from a buffer refilled 256 ids at a time: across several refills (and
    /// from several tasks at once) none repeats, and each is 32 lowercase hex digits.
    @Test func generatedIdsStayDistinctAcrossRefills() async {
        let ids = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<4 { group.addTask { (0..<500).map { _ in RequestIDMiddleware<FollaRequestContext>.generate() } } }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(Set(ids).count == 2_000)
        #expect(ids.allSatisfy { $0.utf8.count == 32 && $0.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) } })
        // Every digit position takes many values (not a counter, not a constant half).
        for position in 0..<32 {
            let digits = Set(ids.map { $0.utf8[$0.utf8.index($0.utf8.startIndex, offsetBy: position)] })
            #expect(digits.count == 16, "position \(position): \(digits.count) values")
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
