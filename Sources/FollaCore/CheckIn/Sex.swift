/// Self-reported sex, optional and counted only together with an age (as the original
/// did, so that averages divide by the people who actually reported).
public enum Sex: Int, Sendable, CaseIterable {
    // The original app's integers: 1 male, 2 female (thesis §3.3, table "device").
    case male = 1
    case female = 2

    public init(parsing text: String, field: String = "sex") throws(FieldError) {
        switch text.lowercased() {
        case "male", "m", "1": self = .male
        case "female", "f", "2": self = .female
        default: throw FieldError(field, "must be male or female (or 1 / 2)")
        }
    }

    public var name: String { self == .male ? "male" : "female" }
}
