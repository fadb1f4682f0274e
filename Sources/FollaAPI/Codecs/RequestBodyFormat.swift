import FollaCore
import Foundation
import Hummingbird

/// The body formats a write endpoint accepts, chosen by `Content-Type`.
///
/// All of them decode to the same `Fields`, so the domain validates one shape and the
/// error messages are the same whatever the client sent.
enum RequestBodyFormat: CaseIterable {
    case json, form, xml

    /// The media type named in answers and errors.
    var mediaType: String {
        switch self {
        case .json: "application/json"
        case .form: "application/x-www-form-urlencoded"
        case .xml: "application/xml"
        }
    }

    /// - Parameters:
    ///   - contentType: the request's `Content-Type`.
    ///   - accepted: the formats the endpoint's contract declares (the original app's
    ///     endpoints take forms only, as PHP's `$_POST` did); any other is a 415.
    init(contentType: String?, accepting accepted: [RequestBodyFormat] = allCases) throws(Problem) {
        let parts = contentType?.split(separator: ";").map(Self.parameter) ?? []
        let media = parts.first
        // A parameter is name=value (RFC 9110, 5.6.6): a bare name (`; charset`) names nothing
        // and is refused, not skipped. An empty one (a trailing `;`) is harmless.
        if let bare = parts.dropFirst().first(where: { !$0.isEmpty && !$0.contains("=") }) {
            throw Problem(.unsupportedMediaType, type: "unsupported-media-type", title: "Unsupported media type",
                          detail: "the Content-Type parameter \(bare) has no value; a parameter is name=value")
        }
        // Every body is read as UTF-8: a charset parameter naming anything else is refused, not garbled.
        if let charset = parts.dropFirst().first(where: { $0.hasPrefix("charset=") })?.dropFirst(8)
            .trimmingCharacters(in: CharacterSet(charactersIn: "\"' ")), charset != "utf-8", charset != "utf8" {
            throw Problem.onlyUTF8(charset.isEmpty ? "a charset with no value is not accepted" : "charset \(charset) is not accepted")
        }
        let format: RequestBodyFormat? = switch media {
        case "application/json", "text/json": .json
        case "application/x-www-form-urlencoded": .form
        case "application/xml", "text/xml": .xml
        default: nil
        }
        guard let format, accepted.contains(format) else {
            let names = accepted.map(\.mediaType)
            let send = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
            throw Problem(.unsupportedMediaType, type: "unsupported-media-type", title: "Unsupported media type",
                          detail: media.map { "Content-Type \($0) is not accepted here; send \(send)" } ?? "missing Content-Type; send \(send)")
        }
        self = format
    }

    /// A header's token (a media type, a parameter, a coding) without HTTP's optional
    /// whitespace (spaces and tabs), ASCII-lowercased. By hand: Foundation's `CharacterSet`
    /// trimming and `lowercased()` were ~1.6 % of the server's CPU per check-in.
    static func parameter(_ text: Substring) -> String {
        let isSpace = { (c: UInt8) in c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") }
        let bytes = text.utf8.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        return String(decoding: bytes.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// - Parameters:
    ///   - body: the request's body.
    ///   - xmlRoot: the root element an XML body must have (the contract's `xml.name`); nil
    ///     takes none, so a route that forgot to name it refuses XML rather than taking any root.
    func decode(_ body: ByteBuffer, xmlRoot: String?) throws(Problem) -> Fields {
        let bytes = Data(buffer: body)
        switch self {
        case .json: return try JSONFieldDecoder.decode(bytes)
        case .form: return try FormFieldDecoder.decode(bytes)
        case .xml:
            guard let xmlRoot else { throw Problem.malformed("this endpoint names no XML root; send another format") }
            return try XMLFieldDecoder.decode(bytes, root: xmlRoot)
        }
    }
}

extension Request {
    /// The request's fields, from a body of at most `limit` bytes.
    /// - Parameters:
    ///   - limit: the most bytes the body may have (a 413 past it).
    ///   - xmlRoot: the root element of an XML body, as the endpoint's schema names it
    ///     (`xml.name`); nil only where the endpoint takes no XML.
    ///   - accepted: the body formats the endpoint takes (a 415 for any other).
    mutating func decodeFields(limit: Int, xmlRoot: String? = nil,
                               accepting accepted: [RequestBodyFormat] = RequestBodyFormat.allCases) async throws -> Fields {
        let (format, body) = try await checkedBody(limit: limit, accepting: accepted)
        return try format.decode(body, xmlRoot: xmlRoot)
    }

    /// The body of a write, once its headers say it can be read: a format the endpoint takes
    /// (415 otherwise), UTF-8 (a charset parameter naming anything else is a 415), no coding
    /// but identity (415), at most `limit` bytes (413). Every write's body passes here, venues
    /// too (they skipped the coding and charset checks, and took a gzipped body as JSON).
    /// - Parameters:
    ///   - limit: the most bytes the body may have.
    ///   - accepted: the body formats the endpoint takes.
    mutating func checkedBody(limit: Int, accepting accepted: [RequestBodyFormat]) async throws -> (RequestBodyFormat, ByteBuffer) {
        let format = try RequestBodyFormat(contentType: headers[.contentType], accepting: accepted)
        // A compressed body would be read as garbage (or, worse, as something else): refuse
        // any coding but identity rather than ignore the header.
        if let coding = headers[.contentEncoding].map({ RequestBodyFormat.parameter($0[...]) }), coding != "identity", !coding.isEmpty {
            throw Problem(.unsupportedMediaType, type: "unsupported-content-encoding", title: "Unsupported content encoding",
                          detail: "Content-Encoding \(coding) is not accepted; send the body uncompressed")
        }
        return (format, try await collectBody(limit: limit))
    }

    /// The whole body, at most `limit` bytes (a 413 problem past it).
    mutating func collectBody(limit: Int) async throws -> ByteBuffer {
        do {
            return try await collectBody(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw Problem.bodyTooLarge("the body must be at most \(limit) bytes")
        }
    }
}
