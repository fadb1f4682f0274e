/// The groups answer as an RFC 7946 FeatureCollection (`application/geo+json`): a Point
/// feature per group and, for clustered groups, a Polygon feature for the hull right after
/// it.
package struct GroupsFeatureCollection: Encodable, Sendable {
    package var features: [GroupFeature]

    package init(_ doc: GroupsDocument) {
        features = []
        features.reserveCapacity(doc.groups.count * 2)
        for (index, g) in doc.groups.enumerated() {
            let id = g.id.map { "group-\($0)" } ?? "cell-\(index)"
            features.append(GroupFeature(id: id, kind: .group(g)))
            if let hull = g.hull { features.append(GroupFeature(id: "hull-" + id, kind: .hull(g, hull))) }
        }
    }

    enum CodingKeys: String, CodingKey { case features, type }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(features, forKey: .features)
        try c.encode("FeatureCollection", forKey: .type)
    }
}
