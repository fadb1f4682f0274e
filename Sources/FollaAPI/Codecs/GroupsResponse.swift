import Hummingbird
import NIOCore

/// A groups document in the negotiated format: JSON and GeoJSON through `JSONWriter` (the
/// hot read of a crowd: see there for the measured difference), XML through `XMLWriter`.
enum GroupsResponse {
    /// - Parameter single: one place (`GET /v1/places/{id}`): the group itself, not a document.
    static func render(_ doc: GroupsDocument, as format: ResponseFormat, single: Bool = false) -> Response {
        let body: ByteBuffer
        switch format {
        case .json: body = ByteBuffer(bytes: single ? GroupsJSON.group(doc.groups[0]) : GroupsJSON.document(doc))
        case .xml: body = ByteBuffer(string: single ? GroupsXML.encodeSingle(doc.groups[0]) : GroupsXML.encode(doc))
        case .geojson, .atom: body = ByteBuffer(bytes: GroupsGeoJSON.encode(doc))  // atom is never offered here
        }
        return Answer.respond(body: body, contentType: format.mediaType, headers: [.vary: "Accept"])
    }
}
