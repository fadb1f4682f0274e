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

    static func negotiate(_ request: Request, offered: [ResponseFormat] = groups) throws(Problem) -> ResponseFormat {
        if let name = request.uri.queryParameters.get("format") {
            guard let f = ResponseFormat(rawValue: name.lowercased()), offered.contains(f) else {
                throw Problem(.badRequest, type: "invalid-field", title: "Invalid request field",
                              detail: "format must be one of \(offered.map(\.rawValue).joined(separator: ", "))", field: "format")
            }
            return f
        }
        guard let accept = request.headers[.accept], !accept.isEmpty else { return .json }
        // Media ranges by descending q, stable for ties (the client's order).
        let ranges = accept.split(separator: ",").enumerated().compactMap { index, item -> (String, Double, Int)? in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first, !type.isEmpty else { return nil }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (type, q, index)
        }.filter { $0.1 > 0 }.sorted { ($1.1, $0.2) < ($0.1, $1.2) }
        for (type, _, _) in ranges {
            if let f = match(type, offered) { return f }
        }
        throw Problem(.notAcceptable, type: "not-acceptable", title: "Not acceptable",
                      detail: "this resource is available as " + offered.map(\.mediaType).map { String($0.prefix { $0 != ";" }) }.joined(separator: ", "))
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
