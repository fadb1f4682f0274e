import Crypto
import Foundation
import Hummingbird

/// Strong ETags over the exact bytes, and 304 Not Modified when the client has them.
enum ConditionalGET {
    static func etag(_ body: String) -> String {
        etag(ByteBuffer(string: body))
    }

    static func etag(_ body: ByteBuffer) -> String {
        "\"" + SHA256.hash(data: Data(buffer: body)).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
    }

    static func respond(body: String, contentType: String, request: Request, maxAge: Int) -> Response {
        let tag = etag(body)
        var headers: HTTPFields = [
            .eTag: tag, .cacheControl: "public, max-age=\(maxAge)", .vary: "Accept", .contentType: contentType,
        ]
        if let inm = request.headers[.ifNoneMatch], matches(inm, tag) {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        return Answer.respond(text: body, contentType: contentType, cache: nil, headers: headers)
    }

    static func matches(_ header: String, _ tag: String) -> Bool {
        header.split(separator: ",").contains {
            let t = $0.trimmingCharacters(in: .whitespaces)
            return t == "*" || t == tag || t == "W/" + tag
        }
    }
}
