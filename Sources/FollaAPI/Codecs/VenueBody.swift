import FollaCore
import FollaGeo
import Foundation
import Hummingbird

/// The venue body: `{"slug","name","area": GeoJSON Polygon}` or `{"slug","name","centre":{"lat","lon"},"radius_m"}`.
enum VenueBody {
    static let fields: Set<String> = ["slug", "name", "area", "centre", "radius_m"]

    static func decode(_ request: inout Request, slug pathSlug: String?, limit: Int) async throws -> VenueDefinition {
        let (_, body) = try await request.checkedBody(limit: limit, accepting: [.json])
        try StrictJSON.require(Data(buffer: body))  // the same strict reader as every other route
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] else {
            throw Problem.malformed("the body must be a JSON object")
        }
        if let unknown = object.keys.filter({ !fields.contains($0) }).sorted().first {
            throw FieldError(unknown, "is not a known field; expected one of \(fields.sorted().joined(separator: ", "))")
        }
        if let given = object["slug"], !(given is String) { throw FieldError("slug", "must be a string") }
        if let given = object["name"], !(given is String) { throw FieldError("name", "must be a string") }
        var slug = object["slug"] as? String
        if let pathSlug {
            if let slug, slug != pathSlug { throw FieldError("slug", "differs from the slug in the path") }
            slug = pathSlug
        }
        guard let slug else { throw FieldError("slug", "is required") }
        guard let name = object["name"] as? String else { throw FieldError("name", "is required") }
        let ring: [Coordinate]
        switch (object["area"], object["centre"]) {
        case (let area?, nil):
            guard object["radius_m"] == nil else { throw FieldError("radius_m", "goes with centre, not with area") }
            ring = try polygon(area)
        case (nil, let centre?):
            guard let c = centre as? [String: Any], Set(c.keys).isSubset(of: ["lat", "lon"]), let lat = number(c["lat"]), let lon = number(c["lon"]) else {
                throw FieldError("centre", "must be {\"lat\": …, \"lon\": …}")
            }
            let point = try Coordinate(validatingLatitude: lat, longitude: lon, latField: "centre", lonField: "centre")
            guard let r = number(object["radius_m"]), (10.0...5000.0).contains(r) else {
                throw FieldError("radius_m", "must be between 10 and 5000 metres with centre")
            }
            ring = AreaShapes.circle(centre: point, radius: r)
        case (nil, nil): throw FieldError("area", "is required (a GeoJSON Polygon), unless centre and radius_m are given")
        default: throw FieldError("area", "and centre exclude each other: give one")
        }
        let venue = try VenueDefinition(slug: slug, name: name, ring: ring)
        if let problem = AreaShapes.problem(with: venue.ring) { throw FieldError("area", "is not acceptable: \(problem)") }
        return venue
    }

    static func number(_ v: Any?) -> Double? {
        // JSON true/false also arrive as NSNumber (objCType "c"): they are not numbers here.
        guard let n = v as? NSNumber, String(cString: n.objCType) != "c" else { return nil }
        let d = n.doubleValue
        return d.isFinite ? d : nil
    }

    static func polygon(_ area: Any) throws(FieldError) -> [Coordinate] {
        guard let geo = area as? [String: Any], geo["type"] as? String == "Polygon",
              let rings = geo["coordinates"] as? [Any], let shell = rings.first as? [Any]
        else { throw FieldError("area", "must be a GeoJSON Polygon: {\"type\":\"Polygon\",\"coordinates\":[[[lon,lat],…]]}") }
        guard rings.count == 1 else { throw FieldError("area", "polygons with holes are not supported") }
        var out: [Coordinate] = []
        for position in shell {
            guard let p = position as? [Any], (2...3).contains(p.count), let lon = number(p[0]), let lat = number(p[1]),
                  p.count == 2 || number(p[2]) != nil else {
                throw FieldError("area", "each position must be [longitude, latitude] or [longitude, latitude, altitude]")
            }
            out.append(try Coordinate(validatingLatitude: lat, longitude: lon, latField: "area", lonField: "area"))
        }
        return out
    }
}
