import NIOCore
import NIOHTTP1

extension LeanHTTPClient {
    /// A request's bytes as they go on the wire: one buffer, one write.
    ///
    /// Written by hand with the reader (`HTTPResponseReader` says why). Only this process's
    /// own requests pass here, so what is checked is that no part can break the framing: the
    /// method and each header's name must be tokens (RFC 9110 5.6.2), a path printable ASCII
    /// starting with `/`, a header's value free of control bytes (a tab aside), and the
    /// fields that frame the request (`Host`, `Content-Length`, `Transfer-Encoding`,
    /// `Connection`) are this function's own; anything else is refused rather than sent.
    ///
    /// - Parameters:
    ///   - method: the request's method.
    ///   - path: the path and query.
    ///   - hostLine: the `Host` field's whole line, CRLF included.
    ///   - headers: extra header fields.
    ///   - body: the body, if any; its `Content-Length` is written here.
    static func request(_ method: HTTPMethod, _ path: String, hostLine: String, headers: [(String, String)],
                        body: ByteBuffer?) throws -> ByteBuffer {
        guard Self.isToken(method.rawValue), path.utf8.first == UInt8(ascii: "/"), path.utf8.allSatisfy({ $0 > 32 && $0 < 127 }),
              headers.allSatisfy({ Self.isToken($0.0) && Self.isFieldValue($0.1) && !Self.framing.contains($0.0.lowercased()) })
        else { throw Failure(description: "a request line or header that would break HTTP framing: \(method) \(path)") }
        var bytes = ByteBuffer()
        bytes.reserveCapacity(64 + path.utf8.count + hostLine.utf8.count + (body?.readableBytes ?? 0)
                              + headers.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 })
        bytes.writeString(method.rawValue)
        bytes.writeInteger(UInt8(ascii: " "))
        bytes.writeString(path)
        bytes.writeStaticString(" HTTP/1.1\r\n")
        bytes.writeString(hostLine)
        for (name, value) in headers {
            bytes.writeString(name)
            bytes.writeStaticString(": ")
            bytes.writeString(value)
            bytes.writeStaticString("\r\n")
        }
        if let body {
            bytes.writeStaticString("Content-Length: ")
            bytes.writeString(String(body.readableBytes))
            bytes.writeStaticString("\r\n\r\n")
            bytes.writeImmutableBuffer(body)
        } else {
            bytes.writeStaticString("\r\n")
        }
        return bytes
    }

    /// The fields that frame a request, written here only.
    private static let framing: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]

    /// No control byte (a tab aside) in a header's value.
    private static func isFieldValue(_ text: String) -> Bool {
        text.utf8.allSatisfy { ($0 >= 32 || $0 == 9) && $0 != 127 }
    }

    /// A header's name: one or more of RFC 9110's token characters.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                || "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
