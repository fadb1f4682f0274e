/// Splits a SQL script into statements, for drivers that send one statement per message
/// (PostgresNIO uses the extended protocol, which refuses several commands at once).
///
/// Understands what can hide a `;`: quoted strings, quoted identifiers, `--` and `/* */`
/// comments (nested, as PostgreSQL allows), and dollar-quoted bodies (`$$`, `$tag$`).
public enum SQLScript {
    public static func statements(_ script: String) -> [String] {
        let s = Array(script.unicodeScalars)
        var out: [String] = []
        var start = 0
        var i = 0

        func at(_ j: Int) -> Unicode.Scalar? { j >= 0 && j < s.count ? s[j] : nil }

        func flush(upTo end: Int) {
            let text = String(String.UnicodeScalarView(s[start..<end])).trimmingCharacters(in: .whitespacesAndNewlines)
            if !isOnlyComments(text) { out.append(text) }
        }

        while i < s.count {
            let c = s[i]
            let next: Unicode.Scalar? = i + 1 < s.count ? s[i + 1] : nil
            switch c {
            case "'", "\"":
                i += 1
                while i < s.count {
                    if at(i) == c {
                        if at(i + 1) == c { i += 2; continue }  // doubled quote
                        break
                    }
                    i += 1
                }
                i += 1
            case "-" where next == "-":
                while let ch = at(i), ch != "\n" { i += 1 }
            case "/" where next == "*":
                var depth = 1
                i += 2
                while i < s.count && depth > 0 {
                    if at(i) == "/" && at(i + 1) == "*" { depth += 1; i += 2 }
                    else if at(i) == "*" && at(i + 1) == "/" { depth -= 1; i += 2 }
                    else { i += 1 }
                }
            case "$":
                if let tagEnd = dollarTagEnd(s, from: i) {
                    let tag = Array(s[i...tagEnd])
                    i = tagEnd + 1
                    while i < s.count {
                        if at(i) == "$" && (0..<tag.count).allSatisfy({ at(i + $0) == tag[$0] }) {
                            i += tag.count
                            break
                        }
                        i += 1
                    }
                } else {
                    i += 1
                }
            case ";":
                flush(upTo: min(i, s.count))
                i += 1
                start = i
            default:
                i += 1
            }
        }
        if start < s.count { flush(upTo: min(i, s.count)) }
        return out
    }

    /// `$tag$` starting at `i` (tag: letters, digits, underscores, not starting with a digit).
    private static func dollarTagEnd(_ s: [Unicode.Scalar], from i: Int) -> Int? {
        var j = i + 1
        while j < s.count {
            let c = s[j]
            if c == "$" { return j }
            let isTagChar = c.properties.isAlphabetic || c == "_" || (j > i + 1 && ("0"..."9").contains(c))
            guard isTagChar else { return nil }
            j += 1
        }
        return nil
    }

    private static func isOnlyComments(_ text: String) -> Bool {
        text.split(separator: "\n").allSatisfy {
            let line = $0.trimmingCharacters(in: .whitespaces)
            return line.isEmpty || line.hasPrefix("--")
        }
    }
}

import Foundation
