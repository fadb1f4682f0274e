/// Input that breaks a rule, naming the field so a client can point at it.
///
/// The API turns it into an RFC 9457 problem (`invalid-params` carries `field`); the
/// domain raises it before anything is written, so bad input never changes state.
public struct FieldError: Error, Hashable, Sendable, CustomStringConvertible {
    public var field: String
    public var reason: String

    public init(_ field: String, _ reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}
