/// One feature of the groups FeatureCollection: a group as a Point (its properties are the
/// JSON answer's fields, without `hull`), or a cluster's hull as a Polygon whose properties
/// name the group (`group_id`, null for a cluster of cells) and `"kind": "hull"`.
package struct GroupFeature: Encodable, Sendable {
    package enum Kind: Sendable {
        case group(GroupDTO)
        case hull(GroupDTO, [[Double]])
    }

    /// `group-7`, or `cell-3` for a cell of small groups (it lasts one answer), and
    /// `hull-` before the group's id for its hull.
    package var id: String
    package var kind: Kind

    enum CodingKeys: String, CodingKey { case geometry, id, properties, type }
    enum HullKeys: String, CodingKey {
        case kind
        case groupId = "group_id"
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch kind {
        case .group(let g):
            try c.encode(GeoJSONGeometry.point([g.lon, g.lat]), forKey: .geometry)
            try c.encode(id, forKey: .id)
            try g.encode(to: c.superEncoder(forKey: .properties), includeHull: false)
        case .hull(let g, let ring):
            try c.encode(GeoJSONGeometry.polygon(ring), forKey: .geometry)
            try c.encode(id, forKey: .id)
            var p = c.nestedContainer(keyedBy: HullKeys.self, forKey: .properties)
            try p.encodeOrNull(g.id, forKey: .groupId)
            try p.encode("hull", forKey: .kind)
        }
        try c.encode("Feature", forKey: .type)
    }
}
