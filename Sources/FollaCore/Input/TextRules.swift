/// The character rules of the texts people write (messages, venue names), once, as the
/// contract's patterns state them (`openapi.yaml`: `Text`, a venue's `name`).
public enum TextRules {
    /// Whether `scalar` is one no answer may carry: a control character (C0, DEL, C1; newline
    /// and tab only where `newlines` allows them), a Unicode noncharacter, which XML 1.0
    /// cannot carry (the XML and Atom writers dropped them from a venue's name), or an
    /// explicit bidirectional embedding, override or isolate (U+202A–U+202E, U+2066–U+2069):
    /// a message of "\u{202E}abc" showed reversed on walls, and such controls reorder what
    /// a reader sees against what was written ("Trojan Source"). The implicit marks (U+200E,
    /// U+200F, U+061C), which right-to-left writing needs, stay allowed.
    public static func isForbidden(_ scalar: Unicode.Scalar, newlines: Bool) -> Bool {
        let v = scalar.value
        if v == 0x0A || v == 0x09 { return !newlines }
        let isControl = v < 0x20 || (0x7F...0x9F).contains(v)
        let isNonCharacter = (0xFDD0...0xFDEF).contains(v) || (v & 0xFFFE) == 0xFFFE
        let isBidiControl = (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
        return isControl || isNonCharacter || isBidiControl
    }

    /// Whether `scalar` shows nothing by itself, so that a text must hold one character
    /// outside this set, as the contract's patterns say:
    /// - ECMAScript's `\s`, which the patterns use: wider than Swift's whitespace by U+FEFF
    ///   (a text of one byte order mark was taken, against the contract);
    /// - Unicode's default-ignorable code points, through the standard library: every
    ///   invisible character the patterns list beside `\s` (soft hyphen, zero-width space,
    ///   joiners and marks, word joiner and invisible operators, the Mongolian vowel separator
    ///   and selectors, the combining grapheme joiner, the Hangul fillers, the Khmer inherent
    ///   vowels, variation selectors) is one, and so are the astral ones the patterns cannot
    ///   name without Unicode mode (the tag characters, variation selectors 17–256,
    ///   U+FFF0–FFF8, the musical and shorthand format controls). A text of them only was
    ///   taken as a message and shown as a blank entry on walls (outside probes: session 35,
    ///   "\u{200B}\u{200B}", "\u{3164}"; session 41, one tag character, which can also hide
    ///   text a reader never sees);
    /// - three more that show nothing and that Unicode does not count as ignorable: the
    ///   Braille blank, which the patterns list ("\u{2800}", session 35), the interlinear
    ///   annotation characters and the Egyptian hieroglyph format controls.
    ///
    /// `\s` and the three are written out, because no library names them.
    public static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        // ECMAScript's \s
        case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF: true
        // invisible, not default-ignorable
        case 0x2800, 0xFFF9...0xFFFB, 0x13430...0x1343F: true
        default: scalar.properties.isDefaultIgnorableCodePoint
        }
    }

    /// The first rule `text` breaks, as a sentence about the field; nil when it keeps them.
    /// - Parameters:
    ///   - text: as sent, not trimmed: the contract's patterns refuse a control character
    ///     wherever it stands, and trimming took U+0085, VT, FF and CR off either end (an
    ///     outside probe, session 39: "a\u{85}" was taken as "a").
    ///   - newlines: whether newline and tab are allowed.
    public static func problem(with text: String, newlines: Bool) -> String? {
        if let bad = text.unicodeScalars.first(where: { isForbidden($0, newlines: newlines) }) {
            return "must not contain control characters, bidirectional controls or noncharacters (found U+\(String(bad.value, radix: 16, uppercase: true)))"
        }
        if !text.unicodeScalars.contains(where: { !isBlank($0) }) { return "must not be empty or blank" }
        return nil
    }
}
