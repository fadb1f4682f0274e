extension Viewport {
    public static let parameterNames: Set<String> = ["bbox", "zoom", "tile", "min", "max", "format"]

    /// From the query of `GET /v1/groups?bbox=…&zoom=…` (`format` is the API layer's
    /// business). The point search's parameters (lat, lon, radius, sort, limit, messages,
    /// cluster) do not apply to a viewport and are refused as unknown.
    public init(parameters fields: Fields) throws(FieldError) {
        try fields.rejectUnknown(allowed: Self.parameterNames)
        guard let bbox = try fields.string("bbox") else { throw FieldError("bbox", "is required with zoom") }
        guard let zoom = try fields.integer("zoom", in: Self.zoomRange) else { throw FieldError("zoom", "is required with bbox (0 to 24)") }
        let tile = try fields.integer("tile", in: 0...1024)
        try self.init(bbox: bbox, zoom: zoom, tileSize: tile)
        minPeople = try fields.integer("min", in: GroupQuery.peopleRange) ?? 1
        maxPeople = try fields.integer("max", in: GroupQuery.peopleRange)
    }

    /// Whether a cluster of this many people is answered (max below min matches nothing).
    public func admits(people: Int) -> Bool {
        people >= minPeople && (maxPeople.map { people <= $0 } ?? true)
    }
}
