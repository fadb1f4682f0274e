import FollaCore
import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

extension AppFixture {
    func postMessage(_ device: String, _ text: String) async throws -> TestResponse {
        try await post("/v1/messages", #"{"device_id":"\#(device)","text":"\#(text)"}"#)
    }

    func checkIn(_ device: String, _ c: Coordinate) async throws -> Int {
        let r = try await post("/v1/checkins", #"{"device_id":"\#(device)","lat":\#(c.latitude),"lon":\#(c.longitude)}"#)
        return (try json(r)["place"] as? [String: Any])?["id"] as? Int ?? -1
    }

    func admin(_ path: String, token: String? = adminToken) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: path, method: .post, headers: headers)
    }

    func texts(_ uri: String) async throws -> [String] {
        (try json(try await get(uri))["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
    }
}

func dev(_ n: Int) -> String { String(format: "%040x", n) }

@Suite struct MessageAPITests {
    /// The server decides the place: the device's real one, wherever it says it is.
    @Test func messagesGoWhereTheDeviceIs() async throws {
        try await AppFixture.run { f in
            #expect(try await f.postMessage(dev(1), "hello").status == .conflict)
            let first = try await f.checkIn(dev(1), centre)
            let r = try await f.postMessage(dev(1), "ciao")
            #expect(r.status == .created)
            #expect(try f.json(r)["place_id"] as? Int == first)
            // A claimed place is not even accepted.
            let claim = try await f.post("/v1/messages", #"{"device_id":"\#(dev(1))","text":"x","place_id":999}"#)
            #expect(claim.status == .badRequest)
            // After moving, messages go to the new place.
            f.clock.advance(by: 60)
            let second = try await f.checkIn(dev(1), at(90, 300))
            #expect(second != first)
            #expect(try f.json(try await f.postMessage(dev(1), "qui"))["place_id"] as? Int == second)
            // Silent past the TTL: no longer anywhere.
            f.clock.advance(by: 21 * 60)
            #expect(try await f.postMessage(dev(1), "late").status == .conflict)
            #expect(try await f.texts("/v1/places/\(first)/messages") == ["ciao"])
            #expect(try await f.texts("/v1/places/\(second)/messages") == ["qui"])
        }
    }

    @Test func pagingNewestFirst() async throws {
        try await AppFixture.run { f in
            let place = try await f.checkIn(dev(1), centre)
            // A minute apart: within a minute, the order says nothing (`messagesOfAMinuteKeepNoPostingOrder`).
            for i in 1...7 {
                #expect(try await f.postMessage(dev(1), "m\(i)").status == .created)
                f.clock.advance(by: 60)
            }
            let page1 = try f.json(try await f.get("/v1/places/\(place)/messages?limit=3"))
            #expect((page1["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } == ["m7", "m6", "m5"])
            let next = try #require(page1["next_before"] as? Int)
            #expect(try await f.texts("/v1/places/\(place)/messages?limit=3&before=\(next)") == ["m4", "m3", "m2"])
            // A cursor is a message of this place: ids say nothing of order, so another is a 400.
            _ = try await f.checkIn(dev(2), at(90, 2000))
            let elsewhere = try #require(try f.json(try await f.postMessage(dev(2), "altrove"))["id"] as? Int)
            for before in [elsewhere, next ^ 1] {
                let r = try await f.get("/v1/places/\(place)/messages?before=\(before)")
                #expect(r.status == .badRequest && String(buffer: r.body).contains("before"), "\(before)")
            }
            #expect(try await f.get("/v1/places/\(place)/messages?limit=0").status == .badRequest)
            #expect(try await f.get("/v1/places/99999/messages").status == .notFound)
        }
    }

    /// Message ids are no counter: a client posting between others' messages learns nothing
    /// of how many were posted (hidden ones included, in small groups that show nowhere).
    /// Before (a sequence), the gaps between one device's messages were the others' posts
    /// plus one: 1, 2, 3, 4, 5 here.
    @Test func messageIdsCountNothing() async throws {
        try await AppFixture.run { f in
            _ = try await f.checkIn(dev(1), centre)
            _ = try await f.checkIn(dev(2), at(90, 2000))  // somewhere else
            var own: [Int] = []
            for round in 0..<6 {
                own.append(try #require(try f.json(try await f.postMessage(dev(1), "mine \(round)"))["id"] as? Int))
                for i in 0..<round { #expect(try await f.postMessage(dev(2), "elsewhere \(round).\(i)").status == .created) }
            }
            let gaps = zip(own.dropFirst(), own).map { $0 - $1 }
            #expect(!gaps.contains { (1...5).contains($0) }, "gaps \(gaps)")
            // Within the 32-bit ids of the original app, and distinct.
            #expect(own.allSatisfy { ((1 << 30)..<(1 << 31)).contains($0) }, "\(own)")
            #expect(Set(own).count == own.count)
        }
    }

    /// Messages of one minute come in no order of posting: by their opaque ids. Ordered by
    /// posting, a message shown only once its place reached k fell, on a wall, between
    /// messages an attacker posted every few seconds, which told its time to a few seconds
    /// (an outside probe, session 23: 10 of 10 hidden posts, each to 3–4 s); only the minute
    /// is stored and shown. Before, every read listed them newest posted first.
    ///
    /// Ten messages: random ids list them newest posted first by luck 1 time in 10! ≈ 3.6
    /// million (with eight, 1 in 40 000); posting order always does. Within the fixture's
    /// 1 000 messages per device, a page's 20 and a wall's 50.
    @Test func messagesOfAMinuteKeepNoPostingOrder() async throws {
        try await AppFixture.run { f in
            try await f.makeVenue()
            let place = try await f.checkIn(dev(1), centre)
            let posted = (1...10).map { "m\($0)" }
            for text in posted { #expect(try await f.postMessage(dev(1), text).status == .created) }
            let page = try await f.texts("/v1/places/\(place)/messages")
            #expect(Set(page) == Set(posted))
            #expect(page != posted.reversed(), "\(page)")
            let wall = try f.json(try await f.get("/v1/venues/piazza/wall"))
            let shown = (wall["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String }
            #expect(shown == page, "the wall sorts as the page does")
            // Pages go on through a minute in that order.
            let first = try f.json(try await f.get("/v1/places/\(place)/messages?limit=3"))
            let next = try #require(first["next_before"] as? Int)
            let rest = try await f.texts("/v1/places/\(place)/messages?before=\(next)")
            #expect(((first["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []) + rest == page)
        }
    }

    @Test func reportsHideAndAdminsUnhide() async throws {
        try await AppFixture.run { f in
            let place = try await f.checkIn(dev(1), centre)
            let id = try #require(try f.json(try await f.postMessage(dev(1), "rude words"))["id"] as? Int)
            let report = { (n: Int) in try await f.post("/v1/messages/\(id)/reports", #"{"device_id":"\#(dev(n))"}"#) }
            #expect(try f.json(try await report(2))["hidden"] as? Bool == false)
            #expect(try await report(2).status == .conflict)  // one report per device
            #expect(try f.json(try await report(3))["hidden"] as? Bool == false)
            #expect(try f.json(try await report(4))["hidden"] as? Bool == true)
            // Gone from every read.
            #expect(try await f.texts("/v1/places/\(place)/messages").isEmpty)
            let groups = try f.json(try await f.get("/v1/groups?lat=\(centre.latitude)&lon=\(centre.longitude)&messages=5"))
            #expect(((groups["groups"] as? [[String: Any]])?.first?["messages"] as? [Any])?.isEmpty == true)
            #expect(((groups["groups"] as? [[String: Any]])?.first?["message_count"] as? Int) == 0)
            let legacy = try await f.post("/getMessage.php", "id=\(place)", contentType: "application/x-www-form-urlencoded")
            #expect(!String(buffer: legacy.body).contains("rude"))
            #expect(try await report(5).status == .notFound)
            // Admins: no token, a wrong token, then the right one.
            #expect(try await f.admin("/v1/admin/messages/\(id)/unhide", token: nil).status == .unauthorized)
            #expect(try await f.admin("/v1/admin/messages/\(id)/unhide", token: "guess").status == .unauthorized)
            #expect(try await f.client.execute(uri: "/v1/admin/messages/\(id)/unhide", method: .post,
                                               headers: [.authorization: "Basic \(adminToken)"]).status == .unauthorized)
            // The scheme is case-insensitive (RFC 9110 §11.1).
            #expect(try await f.client.execute(uri: "/v1/admin/messages/\(id)/unhide", method: .post,
                                               headers: [.authorization: "bearer  \(adminToken)"]).status == .ok)
            #expect(try await f.texts("/v1/places/\(place)/messages") == ["rude words"])
            #expect(try await f.admin("/v1/admin/messages/\(id)/hide").status == .ok)
            #expect(try await f.texts("/v1/places/\(place)/messages").isEmpty)
            #expect(try await f.admin("/v1/admin/messages/424242/hide").status == .notFound)
        }
    }

    @Test func rateLimitAnswers429WithRetryAfter() async throws {
        try await AppFixture.run(messageRate: 5) { f in
            _ = try await f.checkIn(dev(1), centre)
            for i in 1...5 { #expect(try await f.postMessage(dev(1), "m\(i)").status == .created) }
            let sixth = try await f.postMessage(dev(1), "m6")
            #expect(sixth.status == .tooManyRequests)
            #expect(Int(sixth.headers[.retryAfter] ?? "") ?? 0 > 0)
            // A message riding on a check-in counts too.
            let ride = try await f.post("/v1/checkins", #"{"device_id":"\#(dev(1))","lat":\#(centre.latitude),"lon":\#(centre.longitude),"message":"m7"}"#)
            #expect(ride.status == .tooManyRequests)
            #expect(try await f.rowCounts()[2] == 5)
            // Another device is not affected; the first one may post again after the window.
            _ = try await f.checkIn(dev(2), centre)
            #expect(try await f.postMessage(dev(2), "hi").status == .created)
            f.clock.advance(by: 601)
            _ = try await f.checkIn(dev(1), centre)
            #expect(try await f.postMessage(dev(1), "again").status == .created)
        }
    }

    @Test func blockedWordsAreRefusedEverywhere() async throws {
        try await AppFixture.run { f in
            _ = try await f.checkIn(dev(1), centre)
            let r = try await f.postMessage(dev(1), "Che TRUFFA questo posto")
            #expect(r.status == .badRequest)
            #expect((try f.json(r)["invalid_params"] as? [[String: Any]])?.first?["name"] as? String == "text")
            #expect(try await f.postMessage(dev(1), "spammy is a different word").status == .created)
            let ride = try await f.post("/v1/checkins", #"{"device_id":"\#(dev(2))","lat":1,"lon":1,"message":"buy spam"}"#)
            #expect(ride.status == .badRequest)
            #expect(try await f.rowCounts() == [1, 1, 1])
        }
    }
}
