import FollaCore
import Foundation

/// A strict RFC 8259 reader: Foundation's parser lets a trailing comma pass and keeps one of
/// two duplicate keys (the first or the last, depending on the route), and no package on
/// hand refuses either, so this small recursive-descent reader does, and says where the
/// problem is.
///
/// It also hands over the top-level object's scalars (`members(of:)`), the request bodies'
/// fields: it has read them already. Decoding them a second time with `JSONDecoder` into
/// `[String: scalar]` (each member tried as a boolean, then a number, then a string, each
/// miss a thrown `DecodingError`) was 7 % of the server's CPU in a 40 000-phone evening.
enum StrictJSON {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Refuses a body that is not strict JSON with a 400 problem saying where.
    static func require(_ data: Data) throws(Problem) {
        try requireUTF8(data)
        do {
            try validate(data)
        } catch {
            throw Problem.malformed("the body is not valid JSON: \(error)")
        }
    }

    /// A body that is not UTF-8 is refused as such, before it is read as JSON.
    static func requireUTF8(_ data: Data) throws(Problem) {
        guard String(validating: data, as: UTF8.self) != nil else {
            throw Problem.malformed("the body is not valid UTF-8")
        }
    }

    static func validate(_ data: Data) throws(Failure) {
        _ = try read(data)
    }

    /// The members of a body that must be one JSON object, each scalar as it is (a number
    /// stays a number), arrays and objects as `.structured`; a 400 problem otherwise.
    static func members(of data: Data) throws(Problem) -> [String: FieldValue] {
        let top: [String: FieldValue]?
        do {
            top = try read(data)
        } catch {
            throw Problem.malformed("the body is not valid JSON: \(error)")
        }
        guard let top else { throw Problem.malformed("the body must be a JSON object") }
        return top
    }

    /// Reads the whole text; the top-level object's members, nil when the text is another value.
    private static func read(_ data: Data) throws(Failure) -> [String: FieldValue]? {
        var reader = Reader(bytes: [UInt8](data))
        reader.skipSpace()
        var top: [String: FieldValue]? = nil
        if reader.peek == UInt8(ascii: "{") {
            top = try reader.object(depth: 0, keeping: true)
        } else {
            _ = try reader.value(depth: 0)
        }
        reader.skipSpace()
        guard reader.at == reader.bytes.count else { throw reader.fail("unexpected text after the JSON value") }
        return top
    }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        func fail(_ what: String) -> Failure { Failure(description: "\(what) at byte \(at)") }

        var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

        mutating func skipSpace() {
            while let c = peek, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { at += 1 }
        }

        mutating func expect(_ c: UInt8) throws(Failure) {
            guard peek == c else { throw fail("expected '\(Character(Unicode.Scalar(c)))'") }
            at += 1
        }

        /// One value; arrays and objects are read through and reported as `.structured`.
        mutating func value(depth: Int) throws(Failure) -> FieldValue {
            guard depth < 64 else { throw fail("nested too deeply") }
            switch peek {
            case UInt8(ascii: "{"): _ = try object(depth: depth, keeping: false); return .structured
            case UInt8(ascii: "["): try array(depth: depth); return .structured
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case let c? where c == UInt8(ascii: "-") || (c >= 0x30 && c <= 0x39): return .number(try number())
            case nil: throw fail("unexpected end of the body")
            default: throw fail("unexpected character")
            }
        }

        /// An object; its members when `keeping` (duplicate keys are refused either way).
        mutating func object(depth: Int, keeping: Bool) throws(Failure) -> [String: FieldValue] {
            at += 1
            skipSpace()
            var members: [String: FieldValue] = [:]
            if peek == UInt8(ascii: "}") { at += 1; return members }
            var keys = Set<String>()
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw fail("expected a key (a trailing comma?)") }
                let key = try string()
                guard keys.insert(key).inserted else { throw fail("duplicate key \"\(key.prefix(40))\"") }
                skipSpace()
                try expect(UInt8(ascii: ":"))
                skipSpace()
                let member = try value(depth: depth + 1)
                if keeping { members[key] = member }
                skipSpace()
                if peek == UInt8(ascii: ",") { at += 1; continue }
                try expect(UInt8(ascii: "}"))
                return members
            }
        }

        mutating func array(depth: Int) throws(Failure) {
            at += 1
            skipSpace()
            if peek == UInt8(ascii: "]") { at += 1; return }
            while true {
                skipSpace()
                if peek == UInt8(ascii: "]") { throw fail("trailing comma in an array") }
                _ = try value(depth: depth + 1)
                skipSpace()
                if peek == UInt8(ascii: ",") { at += 1; continue }
                try expect(UInt8(ascii: "]"))
                return
            }
        }

        mutating func literal(_ word: String) throws(Failure) {
            for c in word.utf8 {
                guard peek == c else { throw fail("unexpected character") }
                at += 1
            }
        }

        mutating func number() throws(Failure) -> Double {
            let start = at
            if peek == UInt8(ascii: "-") { at += 1 }
            guard let first = peek, first >= 0x30 && first <= 0x39 else { throw fail("a number needs digits") }
            if first == 0x30 { at += 1 } else { digits() }
            if peek == UInt8(ascii: ".") {
                at += 1
                guard let d = peek, d >= 0x30 && d <= 0x39 else { throw fail("a number needs digits after its point") }
                digits()
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                at += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { at += 1 }
                guard let d = peek, d >= 0x30 && d <= 0x39 else { throw fail("a number needs digits in its exponent") }
                digits()
            }
            let text = String(decoding: bytes[start..<at], as: UTF8.self)
            guard let v = Double(text), v.isFinite else { throw fail("number \(text.prefix(40)) is out of range (beyond ±1.8e308)") }
            return v
        }

        mutating func digits() {
            while let d = peek, d >= 0x30 && d <= 0x39 { at += 1 }
        }

        /// A string's text; escapes are checked, lone surrogates refused.
        mutating func string() throws(Failure) -> String {
            at += 1
            var out = [UInt8]()
            while true {
                guard let c = peek else { throw fail("unterminated string") }
                at += 1
                switch c {
                case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let e = peek else { throw fail("unterminated string") }
                    at += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        let unit = try hex4()
                        let lone = fail("lone surrogate \\u\(String(unit, radix: 16)) in a string")
                        var scalar = unit
                        if (0xD800...0xDBFF).contains(unit) {
                            guard peek == UInt8(ascii: "\\"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "u") else { throw lone }
                            at += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw lone }
                            scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(unit) {
                            throw lone
                        }
                        out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                    default: throw fail("invalid escape in a string")
                    }
                case 0x00..<0x20: throw fail("unescaped control character in a string")
                default: out.append(c)
                }
            }
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            var v: UInt32 = 0
            for _ in 0..<4 {
                guard let c = peek else { throw fail("unterminated \\u escape") }
                at += 1
                switch c {
                case 0x30...0x39: v = v << 4 | UInt32(c - 0x30)
                case 0x41...0x46: v = v << 4 | UInt32(c - 0x41 + 10)
                case 0x61...0x66: v = v << 4 | UInt32(c - 0x61 + 10)
                default: throw fail("invalid \\u escape")
                }
            }
            return v
        }
    }
}
