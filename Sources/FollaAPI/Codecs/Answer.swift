import Foundation
import Hummingbird
import NIOCore

/// The one response builder of the API's documents (JSON, GeoJSON, XML, Atom, problems):
/// from an `Encodable` value through `AnswerEncoder`, or from bytes a format writer made
/// (`XMLWriter`'s XML and Atom, `JSONWriter`'s hot documents, the legacy `query_to_xml`
/// tables). Static assets (the wall page, the contract, the metrics text) and the wall's
/// event stream are not documents and build their own responses.
///
/// Answers are `no-store` unless the route says otherwise: most of them depend on where
/// people are right now.
enum Answer {
    static let json = "application/json; charset=utf-8"
    static let problemJSON = "application/problem+json"

    /// `value` as JSON.
    static func respond(status: HTTPResponse.Status = .ok, value: some Encodable, contentType: String = json,
                        cache: String? = "no-store", headers: HTTPFields = [:]) throws -> Response {
        let data = try AnswerEncoder().encode(value)
        return respond(status: status, body: ByteBuffer(bytes: data), contentType: contentType, cache: cache, headers: headers)
    }

    /// A body already written.
    static func respond(status: HTTPResponse.Status = .ok, body: ByteBuffer, contentType: String,
                        cache: String? = "no-store", headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = contentType
        if let cache { headers[.cacheControl] = cache }
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    static func respond(status: HTTPResponse.Status = .ok, text: String, contentType: String,
                        cache: String? = "no-store", headers: HTTPFields = [:]) -> Response {
        respond(status: status, body: ByteBuffer(string: text), contentType: contentType, cache: cache, headers: headers)
    }
}
