import Foundation

/// The groups answer as an RFC 7946 FeatureCollection: a Point feature per group (its
/// properties are the JSON fields) and, for clustered groups, a Polygon feature for the hull.
enum GroupsGeoJSON {
    struct Collection: Encodable {
        let type = "FeatureCollection"
        var features: [Feature]
    }

    struct Feature: Encodable {
        let type = "Feature"
        var id: String
        var geometry: Geometry
        var properties: Properties
    }

    enum Geometry: Encodable {
        case point([Double])
        case polygon([[[Double]]])

        enum CodingKeys: String, CodingKey { case type, coordinates }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .point(let p):
                try c.encode("Point", forKey: .type)
                try c.encode(p, forKey: .coordinates)
            case .polygon(let rings):
                try c.encode("Polygon", forKey: .type)
                try c.encode(rings, forKey: .coordinates)
            }
        }
    }

    enum Properties: Encodable {
        case group(GroupDTO)
        case hull(groupID: Int64)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .group(let g):
                var copy = g
                copy.hull = nil  // drawn as its own feature
                try copy.encode(to: encoder)
            case .hull(let id):
                var c = encoder.container(keyedBy: HullKeys.self)
                try c.encode("hull", forKey: .kind)
                try c.encode(id, forKey: .groupId)
            }
        }
        enum HullKeys: String, CodingKey { case kind, groupId }
    }

    static func encode(_ doc: GroupsDocument) throws -> String {
        var features: [Feature] = []
        for g in doc.groups {
            features.append(Feature(id: "group-\(g.id)", geometry: .point([g.lon, g.lat]), properties: .group(g)))
            if let hull = g.hull {
                features.append(Feature(id: "hull-\(g.id)", geometry: .polygon([hull]), properties: .hull(groupID: g.id)))
            }
        }
        return try APIJSON.encode(Collection(features: features))
    }
}
