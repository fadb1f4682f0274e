/// A message as people will read it on phones and venue screens.
///
/// Trimmed, 1–280 characters counted as Unicode code points (as the contract's JSON Schema
/// and the database count them; grapheme clusters, what a person counts, let 280 flags
/// through at 560 code points against the contract's 280), none a control character but
/// newline and tab, nor a noncharacter (they corrupt screens and logs, and XML 1.0 cannot
/// carry most of them), nor a bidirectional embedding, override or isolate, and one that
/// shows (outside ECMAScript's `\s` and the invisible characters: `TextRules`).
public struct MessageText: Hashable, Sendable {
    public static let maxLength = 280
    public let text: String

    public init(_ raw: String, field: String = "message") throws(FieldError) {
        let trimmed = raw.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw FieldError(field, "must not be empty") }
        let length = trimmed.unicodeScalars.count
        guard length <= Self.maxLength else {
            throw FieldError(field, "must be at most \(Self.maxLength) characters (Unicode code points; got \(length))")
        }
        // As sent: a control character at either end is refused, not trimmed away.
        if let problem = TextRules.problem(with: raw, newlines: true) { throw FieldError(field, problem) }
        self.text = trimmed
    }
}
