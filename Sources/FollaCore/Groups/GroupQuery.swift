/// "Where are the groups of people around me": a validated `GET /v1/groups` query.
public struct GroupQuery: Sendable, Equatable {
    public enum Sort: String, Sendable, CaseIterable { case distance, people }

    public static let radiusRange = 15.0...50_000.0
    public static let peopleRange = 1...100_000
    public static let limitRange = 1...1000
    public static let messagesRange = 0...10
    public static let clusterRange = 0.1...5_000.0
    public static let parameterNames: Set<String> = ["lat", "lon", "radius", "min", "max", "limit", "sort", "messages", "cluster", "format"]

    public var centre: Coordinate
    public var radius: Double = 200
    public var minPeople: Int = 1
    public var maxPeople: Int? = nil
    public var limit: Int = 100
    public var sort: Sort = .distance
    /// Latest messages to inline per group.
    public var messages: Int = 0
    /// Merge places closer than this many metres into one group.
    public var clusterEpsilon: Double? = nil

    public init(centre: Coordinate) {
        self.centre = centre
    }

    /// From query parameters (all strings); `format` is the API layer's business and ignored here.
    public init(parameters fields: Fields, allowed: Set<String> = GroupQuery.parameterNames) throws(FieldError) {
        try fields.rejectUnknown(allowed: allowed)
        try self.init(centre: Coordinate(validatingLatitude: fields.requiredDouble("lat"), longitude: fields.requiredDouble("lon")))
        try apply(fields)
    }

    /// Applies the optional search parameters (shared with `POST /v1/checkins?include=groups`).
    public mutating func apply(_ fields: Fields) throws(FieldError) {
        if let r = try fields.double("radius") {
            guard Self.radiusRange.contains(r) else { throw FieldError("radius", "must be between 15 and 50000 metres") }
            radius = r
        }
        minPeople = try fields.integer("min", in: Self.peopleRange) ?? minPeople
        maxPeople = try fields.integer("max", in: Self.peopleRange) ?? maxPeople
        // max below min is an empty range, not an error: it matches no group, the answer a
        // client filtering [min, max] expects (OpenAPI cannot state a rule between two
        // parameters, so a 400 here would break the published contract).
        limit = try fields.integer("limit", in: Self.limitRange) ?? limit
        messages = try fields.integer("messages", in: Self.messagesRange) ?? messages
        if let s = try fields.string("sort") {
            guard let sort = Sort(rawValue: s) else { throw FieldError("sort", "must be distance or people") }
            self.sort = sort
        }
        if let e = try fields.double("cluster") {
            guard Self.clusterRange.contains(e) else { throw FieldError("cluster", "must be between 0.1 and 5000 metres") }
            clusterEpsilon = e
        }
    }

    public func admits(people: Int) -> Bool {
        people >= minPeople && (maxPeople.map { people <= $0 } ?? true)
    }
}
