/// A venue as an operator defines it: a slug for URLs, a name for screens, an area.
public struct VenueDefinition: Sendable, Equatable {
    public var slug: String
    public var name: String
    /// Closed exterior ring, WGS84; validated for shape by the geometry layer.
    public var ring: [Coordinate]

    public static let maxVertices = 1000

    /// What a slug may be: 1–63 of a–z, 0–9 and '-', not starting with '-' (the contract's
    /// `Slug`). Checked where venues are made and where walls are asked for.
    public static func checkSlug(_ slug: String) throws(FieldError) {
        guard slug.utf8.count <= 63, let first = slug.utf8.first,
              slug.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }),
              first != 0x2D
        else { throw FieldError("slug", "must be 1–63 characters of a–z, 0–9 and '-', not starting with '-'") }
    }

    public init(slug: String, name: String, ring: [Coordinate]) throws(FieldError) {
        try Self.checkSlug(slug)
        let trimmed = name.trimmingWhitespace()
        // Counted as the database counts (char_length: code points), not as grapheme clusters:
        // 61 flags are 61 characters to a person but 122 code points to the CHECK.
        guard (1...120).contains(trimmed.unicodeScalars.count) else {
            throw FieldError("name", "must be 1–120 characters (Unicode code points; got \(trimmed.unicodeScalars.count))")
        }
        // As sent: a control character at either end is refused, not trimmed away.
        if let problem = TextRules.problem(with: name, newlines: false) { throw FieldError("name", problem) }
        guard ring.count >= 4 else { throw FieldError("area", "a polygon ring needs at least 4 positions (closed)") }
        guard ring.count <= Self.maxVertices else { throw FieldError("area", "at most \(Self.maxVertices) positions") }
        guard ring.first == ring.last else { throw FieldError("area", "the ring must be closed (last position equal to the first)") }
        for c in ring where !c.isValid { throw FieldError("area", "position \(c) is not a valid longitude/latitude") }
        self.slug = slug
        self.name = trimmed
        self.ring = ring
    }
}
