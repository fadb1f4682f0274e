/// The only key a phone has: its device identifier (a 40-hex UDID, a UUID, …).
///
/// Validated and normalized (lowercase) so that the same phone always gets the same key;
/// the raw value never leaves the request: the store sees only its HMAC
/// (see `DeviceKeyer` in the API layer), and `description` is redacted so that string
/// interpolation into a log cannot leak it.
public struct DeviceID: Hashable, Sendable, CustomStringConvertible {
    public static let allowedLengths = 16...64

    /// The normalized identifier. Use only to compute the device key.
    public let rawValue: String

    public init(_ text: String, field: String = "device_id") throws(FieldError) {
        guard Self.allowedLengths.contains(text.utf8.count) else {
            throw FieldError(field, "must be \(Self.allowedLengths.lowerBound)–\(Self.allowedLengths.upperBound) characters of A–Z, a–z, 0–9 and '-'")
        }
        for byte in text.utf8 {
            let ok = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D
            guard ok else { throw FieldError(field, "may contain only A–Z, a–z, 0–9 and '-'") }
        }
        self.rawValue = text.lowercased()
    }

    public var description: String { "DeviceID(redacted)" }
}
