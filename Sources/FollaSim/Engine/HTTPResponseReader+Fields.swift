import NIOCore

/// The reader's pieces that read one line or one field, without state.
extension HTTPResponseReader {
    /// The next line, without its CRLF; nil until it has come. A bare CR or LF is refused:
    /// read as a line end by some and not by others, it could cut a head short.
    static func line(in buffer: inout ByteBuffer) throws(Malformed) -> ByteBuffer? {
        let view = buffer.readableBytesView
        guard let end = view.firstIndex(where: { $0 == 10 || $0 == 13 }) else { return nil }
        guard view[end] == 13 else { throw Malformed(description: "a bare CR or LF in a line") }
        guard end + 1 < view.endIndex else { return nil }  // a CR whose LF has not come
        guard view[end + 1] == 10 else { throw Malformed(description: "a bare CR or LF in a line") }
        let line = buffer.readSlice(length: end - view.startIndex)!
        buffer.moveReaderIndex(forwardBy: 2)
        return line
    }

    /// A comma-separated list's items, each trimmed of blanks at its ends; empty items are
    /// ignored (RFC 9110 5.6.1).
    static func tokens(_ list: String) -> [String] {
        list.split(separator: ",").compactMap { item in
            var item = item
            while let c = item.first, c == " " || c == "\t" { item.removeFirst() }
            while let c = item.last, c == " " || c == "\t" { item.removeLast() }
            return item.isEmpty ? nil : String(item)
        }
    }

    /// `HTTP/1.x NNN reason`: the minor version and the code.
    static func statusLine(_ line: ByteBuffer) throws(Malformed) -> (Int, Int) {
        let v = line.readableBytesView
        let s = v.startIndex
        func digit(_ i: Int) -> Int? { (48...57).contains(v[s + i]) ? Int(v[s + i] - 48) : nil }
        guard v.count >= 12, v.prefix(7).elementsEqual("HTTP/1.".utf8), v[s + 8] == 32,
              let minor = digit(7), let d0 = digit(9), let d1 = digit(10), let d2 = digit(11),
              v.count == 12 || v[s + 12] == 32
        else { throw Malformed(description: "a bad status line") }
        return (minor, d0 * 100 + d1 * 10 + d2)
    }

    static func chunkSize(_ line: ByteBuffer) throws(Malformed) -> Int {
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

    static func decimal(_ value: ByteBuffer) -> Int? {
        let view = value.readableBytesView
        guard !view.isEmpty, view.count <= 15, view.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return view.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    static func trim(_ value: inout ByteBuffer) {
        while let first = value.readableBytesView.first, first == 32 || first == 9 { value.moveReaderIndex(forwardBy: 1) }
        while let last = value.readableBytesView.last, last == 32 || last == 9 { value.moveWriterIndex(to: value.writerIndex - 1) }
    }

    /// The value of the first header field named `name` (any case) in a header section.
    static func field(_ name: String, in head: ByteBuffer) -> String? {
        var lines = head
        while let line = try? Self.line(in: &lines), line.readableBytes > 0 {
            let view = line.readableBytesView
            guard let colon = view.firstIndex(of: UInt8(ascii: ":")), sameName(view[..<colon], name.utf8) else { continue }
            var value = line.getSlice(at: colon + 1, length: view.endIndex - colon - 1)!
            trim(&value)
            return String(buffer: value)
        }
        return nil
    }

    /// Whether two header names are the same, in any ASCII case.
    static func sameName(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { lower($0) == lower($1) }
    }

    private static func lower(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte | 0x20 : byte }
}
