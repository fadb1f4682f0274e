import HTTPTypes
import Hummingbird
import Logging

/// Gives every request an id a client can quote: the caller's `X-Request-Id` when it is a
/// plausible id, otherwise a fresh one. It is returned on every answer (errors included)
/// and carried by every log line written for the request, the access log's among them.
///
/// An id that is too long or holds anything but letters, digits and `-_.:` is replaced,
/// not echoed: it goes into logs and response headers, where it must not inject anything.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    static var header: HTTPField.Name { HTTPField.Name("X-Request-Id")! }
    /// The metadata key of the id in log lines.
    static var logKey: String { "request_id" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = request.headers[Self.header].flatMap { Self.isAcceptable($0) ? $0 : nil } ?? Self.generate()
        var context = context
        context.logger[metadataKey: Self.logKey] = .string(id)
        var response = try await next(request, context)
        response.headers[Self.header] = id
        return response
    }

    /// 1 to 128 characters of `A-Z a-z 0-9 - _ . :` (UUIDs, hex, W3C trace ids).
    static func isAcceptable(_ id: String) -> Bool {
        let utf8 = id.utf8
        return (1...128).contains(utf8.count) && utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == UInt8(ascii: "-") || c == UInt8(ascii: "_") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":")
        }
    }

    /// 128 random bits as 32 hex digits, drawn 4 kB at a time (`SystemRandomNumberGenerator`
    /// makes one `getrandom(2)` per 64-bit word: two system calls for every request, by
    /// strace on dense groups answers; a draw holds 256 ids).
    static func generate() -> String {
        let (high, low) = RandomWords.shared.withLock { $0.next() }
        return hex(high) + hex(low)
    }

    private static func hex(_ word: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { out in
            for i in 0..<16 {
                let nibble = UInt8((word >> UInt64(60 - 4 * i)) & 0xF)
                out[i] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
            }
            return 16
        }
    }
}
