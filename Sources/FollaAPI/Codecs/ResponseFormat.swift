import FollaCore
import Foundation
import Hummingbird

/// The representations the read endpoints offer, chosen by `?format=` or `Accept`.
enum ResponseFormat: String, CaseIterable {
    case json, xml, geojson, atom

    var mediaType: String {
        switch self {
        case .json: "application/json; charset=utf-8"
        case .xml: "application/xml; charset=utf-8"
        case .geojson: "application/geo+json"
        case .atom: "application/atom+xml; charset=utf-8"
        }
    }

    /// `?format=` wins over `Accept`; no preference means JSON; nothing acceptable is a 406.
    static let groups: [ResponseFormat] = [.json, .xml, .geojson]
    static let wall: [ResponseFormat] = [.json, .xml, .atom]

    /// - Parameters:
    ///   - request: the request, for its `Accept`.
    ///   - fields: its query fields, for `format`.
    ///   - offered: the formats the resource has.
    static func negotiate(_ request: Request, fields: Fields, offered: [ResponseFormat] = groups) throws -> ResponseFormat {
        if let name = try fields.string("format") {
            guard let f = ResponseFormat(rawValue: name.lowercased()), offered.contains(f) else {
                throw Problem(.badRequest, type: "invalid-field", title: "Invalid request field",
                              detail: "format must be one of \(offered.map(\.rawValue).joined(separator: ", "))", field: "format")
            }
            return f
        }
        guard let accept = request.headers[.accept], !accept.isEmpty else { return .json }
        for (type, _) in ranges(accept) {
            if let f = match(type, offered) { return f }
        }
        throw notAcceptable(offered.map(\.mediaType))
    }

    /// For a resource with one representation (JSON pages, tiles, event streams): a 406 when
    /// `Accept` names only other types, as the negotiated resources answer; none is fine.
    ///
    /// - Parameters:
    ///   - request: the request, for its `Accept`.
    ///   - mediaType: the one type the resource has (parameters after `;` are ignored).
    static func requireAccepted(_ request: Request, _ mediaType: String) throws(Problem) {
        guard let accept = request.headers[.accept], !accept.isEmpty else { return }
        let type = String(mediaType.prefix { $0 != ";" }).lowercased()
        let family = type.prefix { $0 != "/" } + "/*"
        guard ranges(accept).contains(where: { $0.type == "*/*" || $0.type == family || $0.type == type }) else {
            throw notAcceptable([mediaType])
        }
    }

    /// `Accept`'s media ranges with q > 0, by descending q, stable for ties (the client's order).
    private static func ranges(_ accept: String) -> [(type: String, q: Double)] {
        accept.split(separator: ",").enumerated().compactMap { index, item -> (String, Double, Int)? in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first, !type.isEmpty else { return nil }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (type, q, index)
        }.filter { $0.1 > 0 }.sorted { ($1.1, $0.2) < ($0.1, $1.2) }.map { ($0.0, $0.1) }
    }

    private static func notAcceptable(_ mediaTypes: [String]) -> Problem {
        Problem(.notAcceptable, type: "not-acceptable", title: "Not acceptable",
                detail: "this resource is available as " + mediaTypes.map { String($0.prefix { $0 != ";" }) }.joined(separator: ", "))
    }

    private static func match(_ type: String, _ offered: [ResponseFormat]) -> ResponseFormat? {
        let candidates: [ResponseFormat]
        switch type {
        case "*/*", "application/*": candidates = [.json, .xml, .geojson, .atom]
        case "application/json", "text/json": candidates = [.json]
        case "application/xml", "text/xml": candidates = [.xml]
        case "application/geo+json": candidates = [.geojson]
        case "application/atom+xml": candidates = [.atom]
        default: candidates = []
        }
        return candidates.first { offered.contains($0) }
    }
}
