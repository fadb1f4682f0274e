import FollaTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import FollaAPI
import FollaStore

/// `Idempotency-Key`: a retried check-in with a message posts it once. Before, every retry
/// posted it again.
@Suite struct IdempotencyTests {
    static let key = HTTPField.Name("Idempotency-Key")!
    static let checkIn = #"{"device_id":"0123456789abcdef0123456789abcdef01234567","lat":44.4938,"lon":11.343,"message":"ciao"}"#

    func post(_ f: AppFixture, _ path: String, _ body: String, key: String?) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let key { headers[Self.key] = key }
        return try await f.client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    @Test func aRetryGetsTheFirstAnswerAndWritesNothing() async throws {
        try await AppFixture.run { f in
            let first = try await post(f, "/v1/checkins", Self.checkIn, key: "retry-1")
            #expect(first.status == .ok, "\(String(buffer: first.body))")
            f.clock.advance(by: 5)
            let again = try await post(f, "/v1/checkins", Self.checkIn, key: "retry-1")
            #expect(again.status == .ok)
            #expect(String(buffer: again.body) == String(buffer: first.body))
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            #expect(try await f.rowCounts() == [1, 1, 1], "the retry wrote again")
            // Without a key (or with another) the same request is a new one.
            #expect(try await post(f, "/v1/checkins", Self.checkIn, key: "retry-2").status == .ok)
            #expect(try await f.rowCounts()[2] == 2)
        }
    }

    /// A retry cannot time the first request's work by when its key turns from "in progress"
    /// to a replay: the answer is recorded (or, after a refusal, the key freed) no sooner than
    /// the answer floor after the first request began. Before, it was recorded as soon as the
    /// work ended (a few ms), and a retry sent at the right moment told founding a place from
    /// joining one by it (or a hidden message's report from an unknown id's).
    @Test func aRetryCannotTimeTheFirstRequestsWork() async throws {
        // Far above the work (a few ms when idle), and far above what a loaded CI box takes
        // between sending the retry and the server reserving its key: at a 5 s floor, one
        // retry sent 0.3 s after the first was answered 200, as if it had been seconds late.
        let floor = Duration.seconds(10)
        try await AppFixture.run(k: 3, answerFloor: floor) { f in
            /// Sends `body` twice under `key`, the second 300 ms after the first reserved it:
            /// long after its work, within its floor unless the box is badly overloaded. A
            /// retry sent within 2 s of the first reserves well within the 10 s floor, so it
            /// must find the key in progress; sent later, nothing is known (a loaded CI run
            /// once took seconds between the two), and nothing is asserted.
            func expectInProgress(_ body: String, key: String, first expected: HTTPResponse.Status) async throws {
                let reserved = try await keys(f)
                let sent = ContinuousClock.now
                let first = Task { try await post(f, "/v1/checkins", body, key: key) }
                while try await keys(f) == reserved { try await Task.sleep(for: .milliseconds(2)) }
                try await Task.sleep(for: .milliseconds(300))
                // Sent within 2 s of the first: its reservation lands well within the 10 s floor.
                let within = ContinuousClock.now - sent < .seconds(2)
                let retry = try await post(f, "/v1/checkins", body, key: key)
                #expect(try await first.value.status == expected)
                if within { #expect(retry.status == .conflict, "\(key): \(retry.status) \(String(buffer: retry.body))") }
            }
            let ping = #"{"device_id":"0123456789abcdef0123456789abcdef01234567","lat":44.4938,"lon":11.343}"#
            try await expectInProgress(ping, key: "timed", first: .ok)
            let later = try await post(f, "/v1/checkins", ping, key: "timed")
            #expect(later.status == .ok && later.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            // A message from a device that does not count yet: refused (403), its key freed.
            let refused = #"{"device_id":"00000000000000000000000000000000000000aa","lat":44.4938,"lon":11.343,"message":"ciao"}"#
            try await expectInProgress(refused, key: "refused", first: .forbidden)
        }
    }

    /// Keys reserved or recorded.
    func keys(_ f: AppFixture) async throws -> Int {
        try await f.db.query("SELECT count(*)::int FROM idempotency_key", logger: TestCluster.logger).collect()[0].decode(Int.self)
    }

    @Test func theSameKeyForAnotherRequestIs422() async throws {
        try await AppFixture.run { f in
            #expect(try await post(f, "/v1/checkins", Self.checkIn, key: "k").status == .ok)
            let other = Self.checkIn.replacingOccurrences(of: "ciao", with: "hello")
            let r = try await post(f, "/v1/checkins", other, key: "k")
            #expect(r.status == .unprocessableContent)
            #expect(try await f.rowCounts() == [1, 1, 1])
            // Another route is another request too.
            #expect(try await post(f, "/v1/messages", #"{"device_id":"0123456789abcdef0123456789abcdef01234567","text":"x"}"#, key: "k").status == .unprocessableContent)
        }
    }

    @Test func aRefusedRequestDoesNotKeepItsKey() async throws {
        try await AppFixture.run { f in
            let bad = try await post(f, "/v1/checkins", #"{"device_id":"0123456789abcdef0123456789abcdef01234567","lat":95,"lon":11.343}"#, key: "k")
            #expect(bad.status == .badRequest)
            #expect(try await post(f, "/v1/checkins", Self.checkIn, key: "k").status == .ok)
            #expect(try await f.rowCounts() == [1, 1, 1])
        }
    }

    @Test(arguments: ["", String(repeating: "a", count: 256), "caf\u{e9}", "a b"])
    func invalidKeysAre400(key: String) async throws {
        try await AppFixture.run { f in
            let r = try await post(f, "/v1/checkins", Self.checkIn, key: key)
            #expect(r.status == .badRequest)
            #expect(try await f.rowCounts() == [0, 0, 0])
        }
    }

    @Test func concurrentRetriesWriteOnce() async throws {
        try await AppFixture.run { f in
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await post(f, "/v1/checkins", Self.checkIn, key: "race").status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == .ok || $0 == .conflict }, "\(statuses)")
            #expect(statuses.contains(.ok))
            #expect(try await f.rowCounts()[2] == 1, "\(statuses)")
        }
    }

    /// A reservation whose request never finished (the server died mid-request) answers 409
    /// while it may still be running, and is taken over after two minutes.
    @Test func anAbandonedReservationIsTakenOver() async throws {
        try await AppFixture.run { f in
            let store = f.deps.idempotency
            let key = try IdempotencyMiddleware<FollaRequestContext>.validate("crashed")
            let request = Request(head: .init(method: .post, scheme: "http", authority: "x", path: "/v1/checkins",
                                              headerFields: [.contentType: "application/json"]), body: .init(buffer: ByteBuffer()))
            let fingerprint = IdempotencyMiddleware<FollaRequestContext>.fingerprint(request, body: ByteBuffer(string: Self.checkIn))
            #expect(try await store.reserve(key, request: fingerprint, at: f.clock.now()) == .reserved)
            let busy = try await post(f, "/v1/checkins", Self.checkIn, key: "crashed")
            #expect(busy.status == .conflict && busy.headers[.retryAfter] != nil)
            f.clock.advance(by: 121)
            #expect(try await post(f, "/v1/checkins", Self.checkIn, key: "crashed").status == .ok)
            #expect(try await f.rowCounts() == [1, 1, 1])
        }
    }
}
