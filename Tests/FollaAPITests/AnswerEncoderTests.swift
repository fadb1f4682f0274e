@testable import FollaAPI
import FollaCore
@testable import FollaServices
import Foundation
import HTTPTypes
import Testing

/// The one JSON encoder: its timestamp format, key order, string escaping, nulls, and the
/// response builder around it.
@Suite struct AnswerEncoderTests {
    typealias F = AnswerFixtures

    struct Stamped: Encodable { var at: Date }

    /// RFC 3339, UTC, whole seconds (the fraction is cut, as `Date.iso8601()` does), the
    /// same text as in the XML answers.
    @Test func oneTimestampFormat() throws {
        #expect(try AnswerEncoder().text(Stamped(at: Date(timeIntervalSince1970: 1_795_381_500.987))) == #"{"at":"2026-11-22T21:05:00Z"}"#)
        #expect(try AnswerEncoder().text(Stamped(at: Date(timeIntervalSince1970: -0.5))) == #"{"at":"1969-12-31T23:59:59Z"}"#)
    }

    /// Keys in byte order (so `a10` before `a9`, capitals first); `/` as itself.
    @Test func sortedKeysAndPlainSlashes() throws {
        let text = try AnswerEncoder().text(["wall": "/wall/piazza", "a9": "y", "a10": "x", "B": "z"])
        #expect(text == #"{"B":"z","a10":"x","a9":"y","wall":"/wall/piazza"}"#)
    }

    /// Where the contract has a key that may be null, the key is there with `null`.
    @Test func nullsAreWrittenNotLeftOut() throws {
        let e = AnswerEncoder()
        #expect(try e.text(MessageDTO(F.m2)).contains(#""place_id":null"#))
        #expect(try e.text(StatsDTO(F.s2)).contains(#""avg_age":null"#))
        let cell = try e.text(GroupDTO(F.g2))
        for key in ["hull", "id", "stats"] { #expect(cell.contains("\"\(key)\":null"), "\(key): \(cell)") }
        #expect(try e.text(MessagePage([], limit: 20)) == #"{"messages":[],"next_before":null}"#)
        let ack = try e.text(CheckInDocument(PrivacyPolicy(k: 3).answer(for: { var r = F.result; r.messageID = nil; return r }()), privacy: PrivacyPolicy(k: 3)))
        #expect(ack == #"{"checked_in_at":"2026-11-22T21:05:00Z","counted":true,"message_id":null}"#)
    }

    /// Whole documents byte for byte where no number is whole (the writer's `200.0` is the
    /// encoder's `200`): the same text as the hand-written writer's.
    @Test func sameBytesAsTheWriterWhereNumbersAllow() throws {
        #expect(try AnswerEncoder().text(MessageDTO(F.m1)) == AnswerGoldens.message)
        #expect(try AnswerEncoder().text(MessageDTO(F.m2)) == AnswerGoldens.smallGroupMessage)
        #expect(try AnswerEncoder().text(ModerationReceipt(id: 12, hidden: true)) == #"{"hidden":true,"id":12}"#)
    }

    /// A NaN or an infinity is a bug upstream: the encoder refuses it (a 500), never writes it.
    @Test func nonFiniteNumbersAreRefused() {
        #expect(throws: EncodingError.self) { try AnswerEncoder().encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try AnswerEncoder().encode(["x": Double.infinity]) }
    }

    @Test func responsesCarryTypeCacheAndStatus() throws {
        let created = try Answer.respond(status: .created, value: MessageDTO(F.m1))
        #expect(created.status == .created)
        #expect(created.headers[.contentType] == "application/json; charset=utf-8")
        #expect(created.headers[.cacheControl] == "no-store")
        let problem = Problem.rateLimited(RateLimited(what: "messages", limit: 5, window: 600, retryAfter: 5)).response()
        #expect(problem.status == .tooManyRequests)
        #expect(problem.headers[.contentType] == "application/problem+json")
        #expect(problem.headers[.retryAfter] == "5")
        let public_ = Answer.respond(text: "<x/>", contentType: "application/xml", cache: "public, max-age=2", headers: [.vary: "Accept"])
        #expect(public_.headers[.cacheControl] == "public, max-age=2")
        #expect(public_.headers[.vary] == "Accept")
    }
}
