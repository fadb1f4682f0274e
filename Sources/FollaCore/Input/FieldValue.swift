/// One field of a request body as it arrived, before validation.
///
/// JSON, form and XML bodies all decode to `[String: FieldValue]`, so one set of rules
/// (and one set of error messages) serves every format: a number in JSON and the same
/// number typed in a form are checked by the same code.
public enum FieldValue: Hashable, Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    /// An array or object where a scalar was expected; kept only to be rejected clearly.
    case structured

    var kind: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .structured: "an object or array"
        }
    }
}

/// A decoded request body: reads typed fields and refuses anything it was not asked for.
public struct Fields: Sendable {
    /// How the values arrived, which decides what counts as absent and as a number.
    public enum Source: Sendable {
        /// JSON: values carry their own types. A number must be a JSON number and text a
        /// JSON string; an empty string is a value (and usually an invalid one). `null` is absent.
        case typed
        /// Form and XML bodies: everything is text; an empty field is absent (the original
        /// app sends every field, empty when unset).
        case text
        /// A query string: everything is text, and `name=` is an invalid value, not an
        /// absent one (a client that sends a parameter means something by it).
        case query
    }

    public private(set) var values: [String: FieldValue]
    public let source: Source

    /// - Parameters:
    ///   - values: the fields by name, as decoded.
    ///   - source: how they arrived (see `Source`); text by default.
    public init(_ values: [String: FieldValue], source: Source = .text) {
        self.values = values
        self.source = source
    }

    /// Fails when the body has a field outside `allowed` (typos must not pass silently).
    public func rejectUnknown(allowed: Set<String>) throws(FieldError) {
        // Lazily: a request with none (nearly all) allocates nothing to find that out.
        if let unknown = values.keys.lazy.filter({ !allowed.contains($0) }).min() {
            throw FieldError(unknown, allowed.isEmpty ? "is not a known field; this request takes none"
                                 : "is not a known field; expected one of \(allowed.sorted().joined(separator: ", "))")
        }
    }

    /// A text field; nil when absent or null (and, in a form or XML body, when empty).
    public func string(_ name: String) throws(FieldError) -> String? {
        switch values[name] {
        case nil, .null: return nil
        case .string(let s): return s.isEmpty && source == .text ? nil : s
        case let other?: throw FieldError(name, "must be a string, got \(other.kind)")
        }
    }

    public func requiredString(_ name: String) throws(FieldError) -> String {
        guard let s = try string(name) else { throw FieldError(name, "is required") }
        return s
    }

    /// A finite number; strings are parsed (forms and XML carry numbers as text).
    public func double(_ name: String) throws(FieldError) -> Double? {
        let value: Double
        switch values[name] {
        case nil, .null: return nil
        case .number(let n): value = n
        case .string(let s) where source != .typed:
            let t = s.trimmingWhitespace()
            if t.isEmpty && source == .text { return nil }
            // Only plain decimals: Double(_:) would also take hex ("0x1p5"), "nan", "inf", and
            // stop at a NUL ("44\0garbage" read as 44).
            guard Self.isDecimal(t), let n = Double(t) else {
                throw FieldError(name, "must be a decimal number (like 44.4938 or -1.5e2)" + Self.shown(t))
            }
            guard n.isFinite else { throw FieldError(name, "is out of range (beyond ±1.8e308)") }
            value = n
        case let other?: throw FieldError(name, "must be a number, got \(other.kind)")
        }
        guard value.isFinite else { throw FieldError(name, "must be a finite number") }
        return value
    }

    /// What was sent, quoted for an error (its first 40 characters), unless it holds control
    /// characters (nothing is echoed that could break a log line or a terminal).
    static func shown(_ t: String) -> String {
        t.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? "" : ", got \"\(t.prefix(40))\""
    }

    /// `[+-] digits [. digits] [(e|E) [+-] digits]`, with digits on at least one side of the
    /// point: the JSON number grammar, plus a leading + and a bare fraction as people type them.
    static func isDecimal(_ t: String) -> Bool {
        var it = t.utf8.makeIterator()
        var c = it.next()
        if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { c = it.next() }
        var digits = 0
        while let d = c, d >= 0x30 && d <= 0x39 { digits += 1; c = it.next() }
        if c == UInt8(ascii: ".") {
            c = it.next()
            while let d = c, d >= 0x30 && d <= 0x39 { digits += 1; c = it.next() }
        }
        guard digits > 0 else { return false }
        if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            c = it.next()
            if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { c = it.next() }
            var exponent = 0
            while let d = c, d >= 0x30 && d <= 0x39 { exponent += 1; c = it.next() }
            guard exponent > 0 else { return false }
        }
        return c == nil
    }

    public func requiredDouble(_ name: String) throws(FieldError) -> Double {
        guard let d = try double(name) else { throw FieldError(name, "is required") }
        return d
    }

    /// A whole number within `range`.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(FieldError) -> Int? {
        // Said only when refused (made for every field asked, it was ~1 µs a query field).
        func wanted() -> String { "must be a whole number between \(range.lowerBound) and \(range.upperBound)" }
        if case .string(let s) = values[name], source != .typed {
            let t = s.trimmingWhitespace()
            // Digits are read exactly: through Double, ids near 2^63 would round out of range.
            if let i = Int(t) {
                guard range.contains(i) else { throw FieldError(name, wanted()) }
                return i
            }
            // Not a number at all (a date where an id goes): said as an integer field's error,
            // not as a coordinate's.
            if !Self.isDecimal(t), !(t.isEmpty && source == .text) {
                throw FieldError(name, wanted() + Self.shown(t))
            }
        }
        guard let d = try double(name) else { return nil }
        // A fraction, or digits beyond Int's range (`Int(_:)` took none of them above).
        guard d == d.rounded(.towardZero), let i = Int(exactly: d), range.contains(i) else { throw FieldError(name, wanted()) }
        return i
    }
}

extension String {
    func trimmingWhitespace() -> String {
        // Most values start and end with a printable ASCII byte: no Character (grapheme)
        // walk for them. Any whitespace begins with a control, a space or a byte ≥ 0x80.
        if let first = utf8.first, let last = utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return self
        }
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
