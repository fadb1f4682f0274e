@testable import FollaSim
import NIOCore
import NIOHTTP1
import Testing

/// The generator's own HTTP/1.1 reading and writing: framing, whatever way the bytes arrive.
@Suite struct HTTPResponseReaderTests {
    /// Feeds `wire` in pieces of `step` bytes; returns every answer read.
    static func answers(_ wire: String, step: Int, keepBody: Bool = true, bodiless: Bool = false) throws -> [HTTPResponseReader.Answer] {
        var reader = HTTPResponseReader()
        reader.expect(keepBody: keepBody, bodiless: bodiless)
        var out: [HTTPResponseReader.Answer] = []
        let bytes = Array(wire.utf8)
        var i = 0
        while i < bytes.count {
            var piece = ByteBuffer(bytes: bytes[i..<min(bytes.count, i + step)])
            // Bytes past an answer stay in the reader for the next one.
            while let answer = try reader.read(&piece) {
                out.append(answer)
                reader.expect(keepBody: keepBody, bodiless: bodiless)
            }
            i += step
        }
        return out
    }

    static let lengthFramed = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nETag: \"abc\"\r\n\r\n{\"groups\":}"
    static let chunked = "HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n, world!!!\r\n0\r\nX-Trailer: t\r\n\r\n"

    /// Two answers back to back, split at every possible size: the same two answers each time.
    @Test(arguments: [1, 2, 3, 5, 7, 16, 64, 4096])
    func readsAnswersSplitAnywhere(step: Int) throws {
        let answers = try Self.answers(Self.lengthFramed + Self.chunked, step: step)
        try #require(answers.count == 2)
        #expect(answers[0].status == 200 && String(buffer: answers[0].body) == "{\"groups\":}" && answers[0].keepAlive)
        #expect(answers[1].status == 201 && String(buffer: answers[1].body) == "hello, world!!!")
    }

    @Test func droppedBodiesStillEndTheAnswer() throws {
        let answers = try Self.answers(Self.chunked + Self.lengthFramed, step: 3, keepBody: false)
        #expect(answers.map(\.status) == [201, 200])
        #expect(answers.allSatisfy { $0.body.readableBytes == 0 })
    }

    @Test func headerLookupIgnoresCase() throws {
        let answer = try #require(try Self.answers(Self.lengthFramed, step: 4096).first)
        #expect(HTTPResponseReader.field("etag", in: answer.head) == "\"abc\"")
        #expect(HTTPResponseReader.field("CONTENT-TYPE", in: answer.head) == "application/json")
        #expect(HTTPResponseReader.field("X-Missing", in: answer.head) == nil)
    }

    /// 204, 304 and a HEAD request's answer have no body, whatever their Content-Length says;
    /// an interim 100 is skipped.
    @Test func answersWithoutABody() throws {
        let wire = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 304 Not Modified\r\nContent-Length: 30\r\n\r\n"
        #expect(try Self.answers(wire, step: 1).map(\.status) == [204, 304])
        let head = try Self.answers("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", step: 2, bodiless: true)
        #expect(head.map(\.status) == [200])
    }

    @Test func connectionCloseAndHTTP10() throws {
        #expect(try Self.answers("HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n", step: 5)
            .map(\.keepAlive) == [false])
        #expect(try Self.answers("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", step: 5).map(\.keepAlive) == [false])
        #expect(try Self.answers("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", step: 5)
            .map(\.keepAlive) == [true])
    }

    @Test(arguments: [
        "HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n",
        "HTTP/1.1 200 OK\r\nNo colon here\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX-A: b\n\r\nContent-Length: 3\r\n\r\nabc",
        "HTTP/1.1 200 OK\nContent-Length: 0\n\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX: a\rb\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chun ked\r\n\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: \r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
    ])
    func refusesWhatIsNotAnAnswer(wire: String) {
        #expect(throws: HTTPResponseReader.Malformed.self) { try Self.answers(wire, step: 3) }
    }

    /// A head over the limit is refused whether its end has come or not, and so are endless
    /// chunk lines.
    @Test(arguments: [1000, 1_000_000])
    func refusesAnEndlessHead(step: Int) {
        let fields = String(repeating: "X-A: b\r\n", count: 10_000)
        #expect(throws: HTTPResponseReader.Malformed.self) { try Self.answers("HTTP/1.1 200 OK\r\n" + fields, step: step) }
        #expect(throws: HTTPResponseReader.Malformed.self) {
            try Self.answers("HTTP/1.1 200 OK\r\n" + fields + "Content-Length: 0\r\n\r\n", step: step)
        }
        #expect(throws: HTTPResponseReader.Malformed.self) {
            try Self.answers("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + fields + "\r\n", step: step)
        }
    }

    /// Several Transfer-Encoding lines make one list; chunked last, it frames the body over a
    /// Content-Length, and the connection is not kept (two framings at once).
    @Test func transferEncodingOverContentLength() throws {
        let wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        let answers = try Self.answers(wire, step: 7)
        #expect(answers.map { String(buffer: $0.body) } == ["abc"])
        #expect(answers.map(\.keepAlive) == [false])
    }

    /// An HTTP/1.0 answer framed by chunks is read, and its connection not kept.
    @Test func chunkedInHTTP10ClosesTheConnection() throws {
        let wire = "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n"
        let answers = try Self.answers(wire, step: 4)
        #expect(answers.map { String(buffer: $0.body) } == ["a"] && answers.map(\.keepAlive) == [false])
    }

    /// Chunk lines are bounded each, not in sum: 30 000 one-byte chunks make one answer.
    @Test func manySmallChunks() throws {
        let wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "1\r\nx\r\n", count: 30_000) + "0\r\n\r\n"
        let answers = try Self.answers(wire, step: 4096)
        #expect(answers.map(\.body.readableBytes) == [30_000])
    }

    /// The client keeps a connection only when its answer ended where the bytes did.
    @Test func idleOnlyWhenNothingIsLeft() throws {
        var reader = HTTPResponseReader()
        reader.expect(keepBody: true, bodiless: false)
        var bytes = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n")
        #expect(try reader.read(&bytes) == nil && !reader.isIdle)
        bytes = ByteBuffer(string: "a")
        #expect(try reader.read(&bytes) != nil && reader.isIdle)
        bytes = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nbHTTP/1.1 200")
        #expect(try reader.read(&bytes) != nil && !reader.isIdle)
    }

    @Test func refusesAMethodThatIsNotAToken() {
        #expect(throws: LeanHTTPClient.Failure.self) {
            try LeanHTTPClient.request(.RAW(value: "GET /x"), "/a", hostLine: "Host: h:1\r\n", headers: [], body: nil)
        }
    }

    @Test func writesOneRequest() throws {
        let bytes = try LeanHTTPClient.request(.POST, "/v1/checkins", hostLine: "Host: h:1\r\n",
                                               headers: [("Content-Type", "application/json")], body: ByteBuffer(string: "{}"))
        #expect(String(buffer: bytes) == "POST /v1/checkins HTTP/1.1\r\nHost: h:1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
        let get = try LeanHTTPClient.request(.GET, "/x?a=1", hostLine: "Host: h:1\r\n", headers: [], body: nil)
        #expect(String(buffer: get) == "GET /x?a=1 HTTP/1.1\r\nHost: h:1\r\n\r\n")
    }

    /// A path or header that would end a line early is refused, never sent.
    @Test(arguments: [("/a b", "If-None-Match", "x"), ("/a\r\nX: y", "If-None-Match", "x"), ("/a", "If-None-Match", "x\r\nEvil: 1"),
                      ("/a", "If-None-Match", "x\ny"), ("", "If-None-Match", "x"), ("a", "If-None-Match", "x"), ("/é", "If-None-Match", "x"),
                      ("/a", "", "x"), ("/a", "X Y", "x"), ("/a", "X:Y", "x"), ("/a", "content-length", "5"),
                      ("/a", "Transfer-Encoding", "chunked"), ("/a", "HOST", "elsewhere"), ("/a", "Connection", "close")])
    func refusesARequestThatBreaksFraming(path: String, name: String, value: String) {
        #expect(throws: LeanHTTPClient.Failure.self) {
            try LeanHTTPClient.request(.GET, path, hostLine: "Host: h:1\r\n", headers: [(name, value)], body: nil)
        }
    }
}
