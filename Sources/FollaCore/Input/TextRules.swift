/// The character rules of the texts people write (messages, venue names), once, as the
/// contract's patterns state them (`openapi.yaml`: `Text`, a venue's `name`).
public enum TextRules {
    /// Whether `scalar` is one no answer may carry: a control character (C0, DEL, C1; newline
    /// and tab only where `newlines` allows them) or a Unicode noncharacter, which XML 1.0
    /// cannot carry (the XML and Atom writers dropped them from a venue's name).
    public static func isForbidden(_ scalar: Unicode.Scalar, newlines: Bool) -> Bool {
        let v = scalar.value
        if v == 0x0A || v == 0x09 { return !newlines }
        let isControl = v < 0x20 || (0x7F...0x9F).contains(v)
        let isNonCharacter = (0xFDD0...0xFDEF).contains(v) || (v & 0xFFFE) == 0xFFFE
        return isControl || isNonCharacter
    }

    /// ECMAScript's `\s`, which the contract's patterns use: a text must hold one character
    /// outside it. Wider than Swift's whitespace by U+FEFF (a text of one byte order mark was
    /// taken, against the contract). Written out because no library names ECMAScript's set.
    public static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF: true
        default: false
        }
    }

    /// The first rule `text` breaks, as a sentence about the field; nil when it keeps them.
    /// - Parameters:
    ///   - text: trimmed.
    ///   - newlines: whether newline and tab are allowed.
    public static func problem(with text: String, newlines: Bool) -> String? {
        if let bad = text.unicodeScalars.first(where: { isForbidden($0, newlines: newlines) }) {
            return "must not contain control characters or noncharacters (found U+\(String(bad.value, radix: 16, uppercase: true)))"
        }
        if !text.unicodeScalars.contains(where: { !isSpace($0) }) { return "must not be empty or blank" }
        return nil
    }
}
