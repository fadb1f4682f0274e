/// A minimal XML 1.0 writer: elements, attributes and escaped text, nothing clever. The
/// one XML writer of every XML answer (groups, places, walls, Atom, the legacy tables).
///
/// Escapes the five special characters and drops characters XML 1.0 cannot carry
/// (input validation already refuses control characters; this is the last line).
///
/// Why not XMLCoder over the answers' `Encodable` types (it was declared and never used,
/// and is gone from Package.swift): the shapes the tests and the original app read need
/// more code around XMLCoder than this writer is. It has no `xsi:nil` (our withheld
/// `<stats xsi:nil="true">` would need a wrapper type per nullable element), attributes
/// that come and go per value (`<group id>` only when there is an id) need a
/// `DynamicNodeEncoding` conformance per type, it passes characters XML 1.0 cannot carry
/// through (ill-formed output), and no option of it writes `query_to_xml`'s layout (blank
/// lines around rows, two-space indent) for `/sendData.php`, which would still need a writer.
struct XMLWriter {
    private(set) var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"

    mutating func open(_ name: String, _ attributes: [(String, String)] = []) {
        text += "<" + name
        for (k, v) in attributes { text += " \(k)=\"\(Self.escape(v))\"" }
        text += ">"
    }

    mutating func close(_ name: String) { text += "</\(name)>" }

    mutating func element(_ name: String, _ value: String?, _ attributes: [(String, String)] = []) {
        guard let value else {
            open(name, attributes + [("xsi:nil", "true")])
            close(name)
            return
        }
        open(name, attributes)
        text += Self.escape(value)
        close(name)
    }

    mutating func empty(_ name: String, _ attributes: [(String, String)]) {
        text += "<" + name
        for (k, v) in attributes { text += " \(k)=\"\(Self.escape(v))\"" }
        text += "/>"
    }

    static func escape(_ s: String) -> String {
        // Most values (numbers, ids, plain ASCII text) need nothing: returned as they are,
        // without building a copy scalar by scalar (that copy was most of sendData.php's answer).
        if s.utf8.allSatisfy(Self.isPlain) { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                let v = scalar.value
                let allowed = v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD) || v >= 0x10000
                if allowed { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// Printable ASCII other than `&`, `<`, `>`, `"`, `'` (the bytes `escape` replaces).
    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x26, 0x3C, 0x3E, 0x22, 0x27: false
        default: byte >= 0x20 && byte < 0x7F
        }
    }
}
