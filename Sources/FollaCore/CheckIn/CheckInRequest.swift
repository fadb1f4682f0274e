/// A validated ping: who (device), where, and optionally age/sex and a message.
///
/// Built only through `init(fields:)`, so every check-in that reaches the store has
/// passed the same rules whatever format it came in.
public struct CheckInRequest: Sendable {
    public static let fieldNames: Set<String> = ["device_id", "lat", "lon", "accuracy_m", "age", "sex", "message"]
    public static let ageRange = 13...120
    public static let accuracyRange = 0.0...10_000.0

    public var device: DeviceID
    public var position: Coordinate
    public var accuracy: Double?
    /// Age and sex together, or nil: one alone is not counted (see `Sex`).
    public var demographics: Demographics?
    public var message: MessageText?

    public init(device: DeviceID, position: Coordinate, accuracy: Double? = nil, demographics: Demographics? = nil, message: MessageText? = nil) {
        self.device = device
        self.position = position
        self.accuracy = accuracy
        self.demographics = demographics
        self.message = message
    }

    public init(fields: Fields) throws(FieldError) {
        try fields.rejectUnknown(allowed: Self.fieldNames)
        device = try DeviceID(fields.requiredString("device_id"))
        position = try Coordinate(validatingLatitude: fields.requiredDouble("lat"), longitude: fields.requiredDouble("lon"))
        accuracy = try fields.double("accuracy_m")
        if let a = accuracy, !Self.accuracyRange.contains(a) {
            throw FieldError("accuracy_m", "must be between 0 and 10000 metres")
        }
        let age = try fields.integer("age", in: Self.ageRange)
        let sex = try fields.string("sex").map { s throws(FieldError) in try Sex(parsing: s) }
        demographics = age.flatMap { a in sex.map { Demographics(age: a, sex: $0) } }
        message = try fields.string("message").map { m throws(FieldError) in try MessageText(m) }
    }
}

/// Age and sex of one reporter.
public struct Demographics: Hashable, Sendable {
    public var age: Int
    public var sex: Sex

    public init(age: Int, sex: Sex) {
        self.age = age
        self.sex = sex
    }
}

extension Coordinate {
    /// A coordinate from user input, with errors that name the offending field.
    public init(validatingLatitude lat: Double, longitude lon: Double, latField: String = "lat", lonField: String = "lon") throws(FieldError) {
        guard lat.isFinite, (-90.0...90.0).contains(lat) else { throw FieldError(latField, "must be a latitude between -90 and 90") }
        guard lon.isFinite, (-180.0...180.0).contains(lon) else { throw FieldError(lonField, "must be a longitude between -180 and 180") }
        self.init(latitude: Self.flushingTiny(lat), longitude: Self.flushingTiny(lon))
    }

    /// 0 for anything closer to 0 than 1e-9° (0.1 mm): PostgreSQL raises an error when float
    /// arithmetic underflows, and the geodesy of a position like 5e-324 underflows.
    public static func flushingTiny(_ degrees: Double) -> Double {
        abs(degrees) < 1e-9 ? 0 : degrees
    }
}
