/// A message as people will read it on phones and venue screens.
///
/// Trimmed, 1–280 characters (grapheme clusters, what a person counts), no control
/// characters (they corrupt screens and logs, and XML 1.0 cannot carry most of them).
public struct MessageText: Hashable, Sendable {
    public static let maxLength = 280
    public let text: String

    public init(_ raw: String, field: String = "message") throws(FieldError) {
        let trimmed = raw.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw FieldError(field, "must not be empty") }
        // Grapheme clusters are what people count, but one can hold any number of combining
        // marks: cap the code points too (the database allows 1000).
        guard trimmed.count <= Self.maxLength else {
            throw FieldError(field, "must be at most \(Self.maxLength) characters (got \(trimmed.count))")
        }
        guard trimmed.unicodeScalars.count <= Self.maxLength * 3 else {
            throw FieldError(field, "has too many combining marks (at most \(Self.maxLength * 3) code points)")
        }
        for scalar in trimmed.unicodeScalars {
            let v = scalar.value
            let isControl = v < 0x20 || (v >= 0x7F && v <= 0x9F)
            let isNewlineOrTab = v == 0x0A || v == 0x09
            let isNonCharacter = (v >= 0xFDD0 && v <= 0xFDEF) || (v & 0xFFFE) == 0xFFFE
            if (isControl && !isNewlineOrTab) || isNonCharacter {
                throw FieldError(field, "must not contain control characters (found U+\(String(v, radix: 16, uppercase: true)))")
            }
        }
        self.text = trimmed
    }
}
