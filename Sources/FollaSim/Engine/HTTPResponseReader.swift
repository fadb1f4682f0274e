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

    /// The longest header section accepted, and the most bytes of chunk lines (sizes and
    /// trailers) one answer may carry.
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
    /// How far into `input` the end of the head has already been looked for.
    private var searched = 0
    private var status = 0
    private var head = ByteBuffer()
    private var keepAlive = true
    private var body = ByteBuffer()
    /// Whether the body's bytes are gathered (or dropped as they come).
    private var keepBody = true
    /// Whether the answer has no body whatever its head says (a HEAD request's).
    private var bodiless = false
    /// Bytes of chunk-size and trailer lines read in this answer.
    private var lineBytes = 0

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
                let end = headEnd()
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
                guard let line = try line() else { return nil }
                let size = try Self.chunkSize(line)
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let left = take(upTo: remaining)
                guard left == 0 else { state = .chunkData(remaining: left); return nil }
                state = .chunkEnd
            case .chunkEnd:
                guard let line = try line() else { return nil }
                guard line.readableBytes == 0 else { throw Malformed(description: "chunk data longer than its size") }
                state = .chunkSize
            case .trailers:
                guard let line = try line() else { return nil }
                if line.readableBytes == 0 { return finish() }
            }
        }
    }

    /// Whether bytes of an unfinished answer were read (a close now cuts an answer short).
    var isIdle: Bool {
        if case .head = state { return input.readableBytes == 0 }
        return false
    }

    // MARK: - Parts

    /// How many bytes of `input` the head takes, through the blank line that ends it, if it
    /// has come. Every byte of CRLFCRLF is a CR or an LF: when the last byte of the window is
    /// neither, no match can start in the window, and the search moves on by four.
    private mutating func headEnd() -> Int? {
        let view = input.readableBytesView
        var i = view.startIndex + max(0, searched - 3)
        while i + 3 < view.endIndex {
            if view[i + 3] != 10 { i += view[i + 3] == 13 ? 1 : 4; continue }
            if view[i] == 13, view[i + 1] == 10, view[i + 2] == 13 { return i + 4 - view.startIndex }
            i += 1
        }
        searched = view.count
        return nil
    }

    private mutating func readHead(through end: Int) throws(Malformed) {
        var section = input.readSlice(length: end)!
        searched = 0
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
            if Self.equalsLowercased(name, "content-length") {
                guard let n = Self.decimal(value), length == nil || length == n else {
                    throw Malformed(description: "a bad or conflicting Content-Length")
                }
                length = n
            } else if Self.equalsLowercased(name, "transfer-encoding") {
                encodings += "," + String(buffer: value).lowercased()
            } else if Self.equalsLowercased(name, "connection") {
                connection += "," + String(buffer: value).lowercased()
            }
        }
        guard code != 101 else { throw Malformed(description: "a 101: nothing asked to switch protocols") }
        if (100..<200).contains(code) { return }  // interim: the answer follows
        status = code
        head = section
        let tokens = Self.tokens(connection)
        let codings = Self.tokens(encodings)
        // Both framings at once "ought to be handled as an error" (RFC 9112 6.3): the answer is
        // read by its chunks, and the connection is not used again.
        keepAlive = (minor >= 1 ? !tokens.contains("close") : tokens.contains("keep-alive")) && (codings.isEmpty || length == nil)
        body = ByteBuffer()
        lineBytes = 0
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

    /// The next chunk-size or trailer line of the input, without its CRLF; nil until it has come.
    private mutating func line() throws(Malformed) -> ByteBuffer? {
        let line = try Self.line(in: &input)
        lineBytes += line.map { $0.readableBytes + 2 } ?? 0
        guard lineBytes + (line == nil ? input.readableBytes : 0) <= Self.maxHead else {
            throw Malformed(description: "chunk lines over \(Self.maxHead) bytes")
        }
        return line
    }

    /// The next line, without its CRLF; nil until it has come. A bare CR or LF is refused:
    /// read as a line end by some and not by others, it could cut a head short.
    private static func line(in buffer: inout ByteBuffer) throws(Malformed) -> ByteBuffer? {
        let view = buffer.readableBytesView
        guard let end = view.firstIndex(where: { $0 == 10 || $0 == 13 }) else { return nil }
        guard view[end] == 13 else { throw Malformed(description: "a bare CR or LF in a line") }
        guard end + 1 < view.endIndex else { return nil }  // a CR whose LF has not come
        guard view[end + 1] == 10 else { throw Malformed(description: "a bare CR or LF in a line") }
        let line = buffer.readSlice(length: end - view.startIndex)!
        buffer.moveReaderIndex(forwardBy: 2)
        return line
    }

    /// A comma-separated list's tokens, without blanks.
    private static func tokens(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.filter { $0 != " " && $0 != "\t" } }.filter { !$0.isEmpty }
    }

    /// `HTTP/1.x NNN reason`: the minor version and the code.
    private static func statusLine(_ line: ByteBuffer) throws(Malformed) -> (Int, Int) {
        let v = line.readableBytesView
        let s = v.startIndex
        func digit(_ i: Int) -> Int? { (48...57).contains(v[s + i]) ? Int(v[s + i] - 48) : nil }
        guard v.count >= 12, v.prefix(7).elementsEqual("HTTP/1.".utf8), v[s + 8] == 32,
              let minor = digit(7), let d0 = digit(9), let d1 = digit(10), let d2 = digit(11),
              v.count == 12 || v[s + 12] == 32
        else { throw Malformed(description: "a bad status line") }
        return (minor, d0 * 100 + d1 * 10 + d2)
    }

    private static func chunkSize(_ line: ByteBuffer) throws(Malformed) -> Int {
        var size = 0
        var digits = 0
        for byte in line.readableBytesView {
            if byte == UInt8(ascii: ";") || byte == 32 || byte == 9 { break }  // extensions follow
            let digit: Int
            switch byte {
            case 48...57: digit = Int(byte - 48)
            case 97...102: digit = Int(byte - 87)
            case 65...70: digit = Int(byte - 55)
            default: throw Malformed(description: "a bad chunk size")
            }
            guard digits < 15 else { throw Malformed(description: "a chunk size too large") }
            size = size * 16 + digit
            digits += 1
        }
        guard digits > 0 else { throw Malformed(description: "a bad chunk size") }
        return size
    }

    private static func decimal(_ value: ByteBuffer) -> Int? {
        let view = value.readableBytesView
        guard !view.isEmpty, view.count <= 15, view.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return view.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    private static func trim(_ value: inout ByteBuffer) {
        while let first = value.readableBytesView.first, first == 32 || first == 9 { value.moveReaderIndex(forwardBy: 1) }
        while let last = value.readableBytesView.last, last == 32 || last == 9 { value.moveWriterIndex(to: value.writerIndex - 1) }
    }

    /// The value of the first header field named `name` (any case) in a header section.
    static func field(_ name: String, in head: ByteBuffer) -> String? {
        var lines = head
        while let line = try? Self.line(in: &lines), line.readableBytes > 0 {
            let view = line.readableBytesView
            guard let colon = view.firstIndex(of: UInt8(ascii: ":")), colon - view.startIndex == name.utf8.count,
                  zip(view[..<colon], name.utf8).allSatisfy({ Self.lower($0) == Self.lower($1) })
            else { continue }
            var value = line.getSlice(at: colon + 1, length: view.endIndex - colon - 1)!
            trim(&value)
            return String(buffer: value)
        }
        return nil
    }

    private static func lower(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte | 0x20 : byte }

    /// Whether `bytes` spell `lowercased` in any case (`lowercased` is ASCII lower case).
    static func equalsLowercased(_ bytes: ByteBuffer, _ lowercased: StaticString) -> Bool {
        guard bytes.readableBytes == lowercased.utf8CodeUnitCount else { return false }
        return lowercased.withUTF8Buffer { expected in
            zip(bytes.readableBytesView, expected).allSatisfy { lower($0) == $1 }
        }
    }
}
