import FollaCore
import FollaServices
import FollaStore
import Foundation
import Hummingbird
import NIOHTTP1

/// An RFC 9457 problem: the one shape every error of the API takes.
///
/// Thrown from handlers; `ProblemMiddleware` also turns Hummingbird's own errors and
/// anything unexpected into one (an unexpected error becomes a 500 without internals).
public struct Problem: Error, Sendable {
    public var status: HTTPResponse.Status
    public var title: String
    public var detail: String
    /// Machine-readable problem type, relative to `/problems/`.
    public var type: String
    /// The request field or parameter at fault, when there is one.
    public var field: String?
    public var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, type: String, title: String, detail: String, field: String? = nil) {
        self.status = status
        self.type = type
        self.title = title
        self.detail = Self.bounded(detail, 400)
        self.field = field.map { Self.bounded($0, 64) }
    }

    /// `text`, cut to `limit` characters with an ellipsis: a problem names what the client
    /// sent (a field's name, a path), and a 9 000-character name was echoed three times in a
    /// 27 kB answer (an outside probe, session 21).
    static func bounded(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : text.prefix(limit - 1) + "…"
    }

    public static func invalid(_ error: FieldError) -> Problem {
        Problem(.badRequest, type: "invalid-field", title: "Invalid request field",
                detail: "\(error.field) \(error.reason)", field: error.field)
    }

    public static func malformed(_ detail: String) -> Problem {
        Problem(.badRequest, type: "malformed-body", title: "Malformed request body", detail: detail)
    }

    /// A presence rule or a network budget refused a well-formed write (nothing was written).
    /// - Parameter field: the field to blame for an implausible movement.
    public static func refused(_ refusal: CheckInRefusal, field: String = "lat") -> Problem {
        switch refusal {
        case .teleport:
            // 409: the ping is well formed but conflicts with where the device last was
            // (the same request from a device elsewhere is accepted).
            return Problem(.conflict, type: "implausible-movement", title: "Check-in refused",
                           detail: refusal.description, field: field)
        case let .budget(retry):
            var p = Problem(.tooManyRequests, type: "network-budget", title: "Too many new devices from this network",
                            detail: refusal.description)
            p.headers[.retryAfter] = String(retry)
            return p
        case .notEstablished:
            return Problem(.forbidden, type: "device-not-established", title: "Device too new",
                           detail: refusal.description)
        }
    }

    /// A per-device rate limit (429 with Retry-After).
    public static func rateLimited(_ r: RateLimited) -> Problem {
        var p = Problem(.tooManyRequests, type: "rate-limited", title: "Too many \(r.what)",
                        detail: "at most \(r.limit) \(r.what) per \(Int(r.window / 60)) minutes; retry in \(r.retryAfter) s")
        p.headers[.retryAfter] = String(r.retryAfter)
        return p
    }

    /// The database cannot serve right now: nothing was done; try again after `Retry-After`.
    public static func unavailable(_ outage: DatabaseUnavailable) -> Problem {
        var p = Problem(.serviceUnavailable, type: "database-unavailable", title: "Service unavailable",
                        detail: "the database is unavailable; retry in \(outage.retryAfterSeconds) s")
        p.headers[.retryAfter] = String(outage.retryAfterSeconds)
        return p
    }

    /// HTTP that NIO's parser cannot read (a malformed head, a bad chunk size, a body cut
    /// short): the client's fault, any client can repeat it at will.
    public static func unreadable(_ error: HTTPParserError) -> Problem {
        malformedRequest("the request could not be read: \(error)")
    }

    /// HTTP itself is wrong (not a field of it): unreadable, or against RFC 9112.
    public static func malformedRequest(_ detail: String) -> Problem {
        Problem(.badRequest, type: "malformed-request", title: "Malformed request", detail: detail)
    }

    /// A method the resource does not take (405), with the `Allow` it does, when known.
    public static func methodNotAllowed(_ detail: String, allow: String? = nil) -> Problem {
        var p = Problem(.methodNotAllowed, type: "method-not-allowed", title: "Method not allowed", detail: detail)
        if let allow { p.headers[.allow] = allow }
        return p
    }

    /// A wall event stream not opened: the network's share of open streams is taken (429),
    /// or the server's (503); retry in a few seconds (`StreamSlots`).
    static func streamsRefused(_ refusal: StreamSlots.Refusal, slots: StreamSlots) -> Problem {
        let retry = 5
        var p = switch refusal {
        case .networkFull:
            Problem(.tooManyRequests, type: "too-many-streams", title: "Too many open event streams",
                    detail: "at most \(slots.perNetwork) event streams may be open at once from one network; close one, or retry in \(retry) s")
        case .serverFull:
            Problem(.serviceUnavailable, type: "too-many-streams", title: "Too many open event streams",
                    detail: "the server holds as many event streams as it may (\(slots.total)); retry in \(retry) s")
        }
        p.headers[.retryAfter] = String(retry)
        return p
    }

    /// A request head too large (431).
    public static func headersTooLarge(_ detail: String) -> Problem {
        Problem(.requestHeaderFieldsTooLarge, type: "headers-too-large", title: "Request header fields too large", detail: detail)
    }

    /// A request head or body that did not arrive in time (408); the connection closes.
    public static func tooSlow(_ part: String, within limit: Duration) -> Problem {
        Problem(.requestTimeout, type: "request-timeout", title: "Request timeout",
                detail: "the request \(part) did not arrive within \(limit)")
    }

    /// A body over the limit (413).
    public static func bodyTooLarge(_ detail: String) -> Problem {
        Problem(.contentTooLarge, type: "body-too-large", title: "Request body too large", detail: detail)
    }

    /// Bodies are read as UTF-8 only: anything else is refused, never garbled (415).
    public static func onlyUTF8(_ detail: String) -> Problem {
        Problem(.unsupportedMediaType, type: "unsupported-charset", title: "Only UTF-8 is accepted",
                detail: "\(detail); send the body in UTF-8")
    }

    public static func notFound(_ detail: String) -> Problem {
        Problem(.notFound, type: "not-found", title: "Not found", detail: detail)
    }

    /// The document (`Problem+Encodable`) through the one JSON encoder.
    func jsonBody() -> ByteBuffer {
        // (Strings and an integer always encode; the fallback is only the type checker's due.)
        let data = (try? AnswerEncoder().encode(self)) ?? Data(#"{"status":\#(status.code)}"#.utf8)
        return ByteBuffer(bytes: data)
    }

    /// The answer: `application/problem+json`, never stored by caches, with the problem's
    /// own headers (`Retry-After`, `Allow`, `WWW-Authenticate`).
    func response() -> Response {
        Answer.respond(status: status, body: jsonBody(), contentType: Answer.problemJSON, cache: "no-store", headers: headers)
    }
}
