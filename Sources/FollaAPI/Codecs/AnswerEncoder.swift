import FollaCore
import Foundation
import Hummingbird
import NIOCore

/// The one JSON encoder of every answer: one configured `JSONEncoder`, so that every JSON
/// answer has the same key order (sorted, byte order), the same strings (`/` not escaped)
/// and the one timestamp format (RFC 3339 in UTC, whole seconds: `Date.iso8601()`, the
/// text the XML answers carry too).
///
/// Answer types name their snake_case keys in `CodingKeys` (no key strategy: a key is
/// written where it is read) and write `null` explicitly where the contract has one
/// (`encodeOrNull`): a synthesized conformance would leave the key out instead.
///
/// Also the request context's `responseEncoder`, so a handler that returns an `Encodable`
/// value the Hummingbird way gets this same encoder through `Answer`.
public struct AnswerEncoder: ResponseEncoder, Sendable {
    public init() {}

    /// Configured once; `JSONEncoder` is Sendable, so one instance serves every request.
    private static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(date.iso8601())
        }
        // A non-finite number is a bug upstream: a 500, never `NaN` in a document.
        e.nonConformingFloatEncodingStrategy = .throw
        return e
    }()

    package func encode(_ value: some Encodable) throws -> Data {
        try Self.encoder.encode(value)
    }

    /// The document as text (for Server-Sent Events and ETags over the exact bytes).
    package func text(_ value: some Encodable) throws -> String {
        String(decoding: try encode(value), as: UTF8.self)
    }

    public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        try Answer.respond(value: value)
    }
}
