import FollaCore
import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Every format carries the same groups: parse XML and GeoJSON back and compare with JSON.
@Suite struct FormatRoundTripTests {
    struct Summary: Hashable {
        var id: Int
        var people: Int
        var distance: Double
        var lat: Double
        var lon: Double
    }

    @Test func jsonXMLAndGeoJSONAgree() async throws {
        try await AppFixture.run { f in
            let hostile = #"<script>alert('x')</script> & \"quotes\" ]]> <![CDATA[ ok"#
            try await f.crowd(at(10, 30), people: 3, startingAt: 0, age: 25, message: hostile)
            try await f.crowd(at(100, 36), people: 1, startingAt: 10)
            try await f.crowd(at(250, 120), people: 2, startingAt: 20)
            let base = "/v1/groups?lat=\(centre.latitude)&lon=\(centre.longitude)&cluster=10&messages=3"

            let json = try f.json(try await f.get(base))
            let fromJSON = (json["groups"] as? [[String: Any]] ?? []).map {
                Summary(id: $0["id"] as? Int ?? -1, people: $0["people"] as? Int ?? -1, distance: $0["distance_m"] as? Double ?? -1,
                        lat: $0["lat"] as? Double ?? 0, lon: $0["lon"] as? Double ?? 0)
            }
            #expect(fromJSON.count == 3)

            let xmlResponse = try await f.get(base, accept: "application/xml")
            let parsed = try XMLGroups.parse(Data(buffer: xmlResponse.body))
            #expect(parsed.groups == fromJSON)
            #expect(parsed.texts.contains(String(hostile.replacingOccurrences(of: "\\\"", with: "\""))))

            let geo = try JSONSerialization.jsonObject(with: Data(buffer: try await f.get(base + "&format=geojson").body)) as? [String: Any] ?? [:]
            #expect(geo["type"] as? String == "FeatureCollection")
            let features = geo["features"] as? [[String: Any]] ?? []
            let points = features.filter { ($0["geometry"] as? [String: Any])?["type"] as? String == "Point" }
            let fromGeo = points.map { feature -> Summary in
                let p = feature["properties"] as? [String: Any] ?? [:]
                let c = (feature["geometry"] as? [String: Any])?["coordinates"] as? [Double] ?? []
                return Summary(id: p["id"] as? Int ?? -1, people: p["people"] as? Int ?? -1, distance: p["distance_m"] as? Double ?? -1,
                               lat: c.count == 2 ? c[1] : 0, lon: c.first ?? 0)
            }
            #expect(fromGeo == fromJSON)
            // Every group has a hull when clustering; RFC 7946 rings are closed and counter-clockwise.
            let polygons = features.filter { ($0["geometry"] as? [String: Any])?["type"] as? String == "Polygon" }
            #expect(polygons.count == 3)
            for polygon in polygons {
                let ring = ((polygon["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])?.first ?? []
                #expect(ring.count >= 4 && ring.first == ring.last)
                var area = 0.0
                for i in 0..<(ring.count - 1) { area += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1] }
                #expect(area > 0)
            }
        }
    }
}

/// Reads `<groups><group id><people/><distance_m/><lat/><lon/>…<text/>…` back.
final class XMLGroups: NSObject, XMLParserDelegate {
    var groups: [FormatRoundTripTests.Summary] = []
    var texts: [String] = []
    private var current: [String: String] = [:]
    private var text = ""
    private var depth = 0

    static func parse(_ data: Data) throws -> XMLGroups {
        let delegate = XMLGroups()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
        return delegate
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        depth += 1
        text = ""
        if name == "group" { current = ["id": attributes["id"] ?? ""] }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        depth -= 1
        switch name {
        case "people", "distance_m", "lat", "lon": current[name] = text
        case "text": texts.append(text)
        case "group":
            groups.append(.init(id: Int(current["id"] ?? "") ?? -1, people: Int(current["people"] ?? "") ?? -1,
                                distance: Double(current["distance_m"] ?? "") ?? -1,
                                lat: Double(current["lat"] ?? "") ?? 0, lon: Double(current["lon"] ?? "") ?? 0))
        default: break
        }
        text = ""
    }
}
