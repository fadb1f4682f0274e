import NIOCore

/// Reads the HTTP/1.1 answers of one keep-alive connection from its bytes, one at a time.
///
/// Written by hand, not NIO's `HTTPResponseDecoder`: the generator must cost at most a third
/// of the server it measures, and at 100 000 phones NIO's decoder (llhttp, a header list of
/// `String`s per answer, a pipeline pass per part) and request encoder were together about a
/// fifth of the generator's CPU (perf, session 34). A phone's answer needs only its status,
/// its framing and now and then one header, so the head is kept as bytes and a header is
/// looked up only when asked for (`Response.header(_:)`).
///
/// What it reads (RFC 9112): a status line, header fields, then a body framed by
/// `Transfer-Encoding` ending in `chunked` or by `Content-Length`, or none for a HEAD
/// request and for 204 and 304. Lines end with CRLF. Interim 1xx answers are skipped. An
/// answer framed only by the connection's close, a 101 (the client never asks to switch),
/// or anything malformed is an error: the client closes the connection and fails the request.
struct HTTPResponseReader {
    /// One whole answer.
    struct Answer {
        var status: Int
        /// The header section, from the first header line through the blank line.
        var head: ByteBuffer
        var body: ByteBuffer
        /// False when the server asked to close (`Connection: close`, or HTTP/1.0 without
        /// `keep-alive`).
        var keepAlive: Bool
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// The longest header section accepted, the longest chunk-size line, and the most bytes
    /// of trailers one answer may carry. (A body's own size is not bounded: the generator
    /// reads its own server.)
    static let maxHead = 64 * 1024

    private enum State {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
    }

    private var state = State.head
    /// Bytes received and not read yet.
    private var input = ByteBuffer()
    /// How far into `input` the end of the head has already been looked for, and its line
    /// ends checked.
    private var scanned = 0
    private var status = 0
    private var head = ByteBuffer()
    private var keepAlive = true
    private var body = ByteBuffer()
    /// Whether the body's bytes are gathered (or dropped as they come).
    private var keepBody = true
    /// Whether the answer has no body whatever its head says (a HEAD request's).
    private var bodiless = false
    /// Bytes of trailer lines read in this answer.
    private var trailerBytes = 0

    /// Starts on the answer to a new request.
    ///
    /// - Parameters:
    ///   - keepBody: false to drop the body's bytes as they arrive.
    ///   - bodiless: true for a HEAD request, whose answer has no body.
    mutating func expect(keepBody: Bool, bodiless: Bool) {
        self.keepBody = keepBody
        self.bodiless = bodiless
    }

    /// Takes `bytes` and returns the answer once it is whole, nil while more is needed.
    mutating func read(_ bytes: inout ByteBuffer) throws(Malformed) -> Answer? {
        if input.readableBytes == 0 { swap(&input, &bytes) } else { input.writeBuffer(&bytes) }
        while true {
            switch state {
            case .head:
                let end = try headEnd()
                guard (end ?? input.readableBytes) <= Self.maxHead else {
                    throw Malformed(description: "a header section over \(Self.maxHead) bytes")
                }
                guard let end else { return nil }
                try readHead(through: end)
            case .fixed(let remaining):
                let left = take(upTo: remaining)
                guard left == 0 else { state = .fixed(remaining: left); return nil }
                return finish()
            case .chunkSize:
                guard let line = try line(trailer: false) else { return nil }
                let size = try Self.chunkSize(line)
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let left = take(upTo: remaining)
                guard left == 0 else { state = .chunkData(remaining: left); return nil }
                state = .chunkEnd
            case .chunkEnd:
                guard let line = try line(trailer: false) else { return nil }
                guard line.readableBytes == 0 else { throw Malformed(description: "chunk data longer than its size") }
                state = .chunkSize
            case .trailers:
                guard let line = try line(trailer: true) else { return nil }
                if line.readableBytes == 0 { return finish() }
            }
        }
    }

    /// Whether nothing past the last whole answer has been read: the connection can carry
    /// the next request.
    var isIdle: Bool {
        if case .head = state { return input.readableBytes == 0 }
        return false
    }

    // MARK: - Parts

    /// How many bytes of `input` the head takes, through the blank line that ends it, if it
    /// has come. Every byte of CRLFCRLF is a CR or an LF: when the last byte of the window is
    /// neither, no match can start in the window, and the search moves on by four.
    /// An LF without its CR is refused as soon as it comes (a head of bare LFs would
    /// otherwise wait for a CRLFCRLF that never comes).
    private mutating func headEnd() throws(Malformed) -> Int? {
        let view = input.readableBytesView
        var i = view.startIndex + max(0, scanned - 3)
        var end: Int?
        while i + 3 < view.endIndex {
            if view[i + 3] != 10 { i += view[i + 3] == 13 ? 1 : 4; continue }
            if view[i] == 13, view[i + 1] == 10, view[i + 2] == 13 { end = i + 4 - view.startIndex; break }
            i += 1
        }
        let limit = view.startIndex + (end ?? view.count)
        var j = view.startIndex + scanned
        while j < limit, let lf = view[j..<limit].firstIndex(of: 10) {
            guard lf > view.startIndex, view[lf - 1] == 13 else { throw Malformed(description: "a bare LF in the head") }
            j = lf + 1
        }
        scanned = end == nil ? view.count : 0
        return end
    }

    private mutating func readHead(through end: Int) throws(Malformed) {
        var section = input.readSlice(length: end)!
        guard let statusLine = try Self.line(in: &section) else { throw Malformed(description: "no status line") }
        let (minor, code) = try Self.statusLine(statusLine)
        var length: Int?
        var encodings = ""
        var connection = ""
        var fields = section
        while let line = try Self.line(in: &fields), line.readableBytes > 0 {
            guard let colon = line.readableBytesView.firstIndex(of: UInt8(ascii: ":")) else {
                throw Malformed(description: "a header line without a colon")
            }
            let nameLength = colon - line.readableBytesView.startIndex
            let name = line.getSlice(at: line.readerIndex, length: nameLength)!
            var value = line.getSlice(at: line.readerIndex + nameLength + 1, length: line.readableBytes - nameLength - 1)!
            Self.trim(&value)
            if Self.sameName(name.readableBytesView, "content-length".utf8) {
                guard let n = Self.decimal(value), length == nil || length == n else {
                    throw Malformed(description: "a bad or conflicting Content-Length")
                }
                length = n
            } else if Self.sameName(name.readableBytesView, "transfer-encoding".utf8) {
                encodings += "," + String(buffer: value).lowercased()
            } else if Self.sameName(name.readableBytesView, "connection".utf8) {
                connection += "," + String(buffer: value).lowercased()
            }
        }
        guard code != 101 else { throw Malformed(description: "a 101: nothing asked to switch protocols") }
        if (100..<200).contains(code) { return }  // interim: the answer follows
        status = code
        head = section
        let tokens = Self.tokens(connection)
        let codings = Self.tokens(encodings)
        // A Transfer-Encoding with nothing in it frames nothing.
        guard encodings.isEmpty || !codings.isEmpty else { throw Malformed(description: "an empty Transfer-Encoding") }
        // Both framings at once "ought to be handled as an error" (RFC 9112 6.3), and so is a
        // Transfer-Encoding in HTTP/1.0 (6.1): the answer is read by its chunks, and the
        // connection is not used again.
        keepAlive = (minor >= 1 ? !tokens.contains("close") : tokens.contains("keep-alive"))
            && (codings.isEmpty || (length == nil && minor >= 1))
        body = ByteBuffer()
        trailerBytes = 0
        if bodiless || code == 204 || code == 304 {
            state = .fixed(remaining: 0)
        } else if !codings.isEmpty {
            // Not ending in chunked, the body would end at the close, which is not read here.
            guard codings.last == "chunked" else { throw Malformed(description: "a Transfer-Encoding not ending in chunked") }
            state = .chunkSize
        } else if let length {
            state = .fixed(remaining: length)
        } else {
            throw Malformed(description: "an answer framed by neither Content-Length nor chunked")
        }
    }

    /// Moves up to `remaining` bytes of body from the input (kept or dropped); returns how
    /// many are still to come.
    private mutating func take(upTo remaining: Int) -> Int {
        let n = min(remaining, input.readableBytes)
        guard n > 0 else { return remaining }
        if keepBody {
            var part = input.readSlice(length: n)!
            if body.readableBytes == 0 { body = part } else { body.writeBuffer(&part) }
        } else {
            input.moveReaderIndex(forwardBy: n)
        }
        return remaining - n
    }

    private mutating func finish() -> Answer {
        state = .head
        defer { body = ByteBuffer(); head = ByteBuffer() }
        return Answer(status: status, head: head, body: body, keepAlive: keepAlive)
    }

    /// The next line of the chunked framing (a chunk's size, the CRLF after its data, or a
    /// trailer), without its CRLF; nil until it has come.
    /// - Parameter trailer: whether it counts toward the answer's trailers.
    private mutating func line(trailer: Bool) throws(Malformed) -> ByteBuffer? {
        let line = try Self.line(in: &input)
        let size = line?.readableBytes ?? input.readableBytes
        if trailer { trailerBytes += line.map { $0.readableBytes + 2 } ?? 0 }
        guard size <= Self.maxHead, trailerBytes + (trailer && line == nil ? size : 0) <= Self.maxHead else {
            throw Malformed(description: "a chunk line or trailers over \(Self.maxHead) bytes")
        }
        return line
    }
}
