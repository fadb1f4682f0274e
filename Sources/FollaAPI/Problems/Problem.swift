import FollaCore
import FollaServices
import FollaStore
import Foundation
import Hummingbird

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
        self.detail = detail
        self.field = field
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

    /// The JSON body, field order fixed for readable output.
    func jsonBody() -> ByteBuffer {
        var members = [
            "\"type\":\(jsonString("/problems/" + type))",
            "\"title\":\(jsonString(title))",
            "\"status\":\(status.code)",
            "\"detail\":\(jsonString(detail))",
        ]
        if let field {
            members.append("\"invalid_params\":[{\"name\":\(jsonString(field)),\"reason\":\(jsonString(detail))}]")
        }
        return ByteBuffer(string: "{" + members.joined(separator: ",") + "}")
    }

    func response() -> Response {
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: jsonBody()))
    }
}

/// JSON string literal with RFC 8259 escaping (`JSONWriter.string`, the one rule).
func jsonString(_ s: String) -> String {
    var w = JSONWriter(capacity: s.utf8.count + 2)
    w.string(s)
    return w.text
}
