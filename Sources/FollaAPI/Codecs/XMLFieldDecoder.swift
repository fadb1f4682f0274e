import FollaCore
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// `<checkin><lat>44.49</lat>…</checkin>` → `Fields`: one level of child elements under
/// the root the endpoint's contract names (its schema's `xml.name`: `<checkin>`,
/// `<message>`, `<report>`; any other root was taken as the same request). DTDs and
/// entities are refused outright; so are nesting, repeats and attributes (the contract's
/// elements have none: `<checkin xmlns="urn:x">`, a root in another namespace, and
/// `<lat unit="rad">` were taken with the attribute unread, an outside probe found).
///
/// UTF-8 only, and said so: a parser that honours a byte-order mark or an `encoding=`
/// declaration reads UTF-16, UTF-32 or UTF-7, where a `<!DOCTYPE` is not the bytes the DTD
/// refusal looks for (that is how it was bypassed), and a declared ISO-8859-1 was read as
/// UTF-8 and garbled. So the bytes must be UTF-8 without NUL or other C0 controls, and a
/// declaration may only name UTF-8; then the refusal sees what the parser will see.
enum XMLFieldDecoder {
    /// - Parameters:
    ///   - data: the body.
    ///   - root: the root element's name the contract gives; no other is taken.
    static func decode(_ data: Data, root: String) throws(Problem) -> Fields {
        guard let text = String(validating: data, as: UTF8.self) else {
            throw Problem.onlyUTF8("the body is not valid UTF-8")
        }
        // XML 1.0 allows no C0 control but tab, CR and LF; UTF-16 and UTF-32 text is full of NULs.
        if text.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) {
            throw Problem.onlyUTF8("the body holds NUL or control bytes (UTF-16 or UTF-32?)")
        }
        if let declared = declaredEncoding(text), declared.lowercased() != "utf-8", declared.lowercased() != "utf8" {
            throw Problem.onlyUTF8("the XML declaration names encoding \"\(declared)\"")
        }
        // No DTDs at all: entity definitions are how XML bombs and external-entity reads
        // work, and a check-in never needs one.
        if text.range(of: "<!DOCTYPE", options: .caseInsensitive) != nil || text.range(of: "<!ENTITY", options: .caseInsensitive) != nil {
            throw Problem.malformed("document type declarations and entities are not accepted")
        }
        let collector = FlatElementCollector(root: root)
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = collector
        let ok = parser.parse()
        if let problem = collector.problem { throw problem }
        // The parser is lenient about what follows the root; the collector is not.
        guard ok, collector.sawRoot, collector.rootClosed, parser.parserError == nil else {
            throw Problem.malformed("the body is not well-formed XML (one root element, closed, nothing after it)")
        }
        return Fields(collector.values.mapValues { .string($0) })
    }

    /// `encoding="…"` of a leading `<?xml …?>` declaration, if any.
    static func declaredEncoding(_ text: String) -> String? {
        let head = text.drop { $0 == "\u{FEFF}" }
        guard head.hasPrefix("<?xml"), let end = head.range(of: "?>") else { return nil }
        let declaration = head[..<end.lowerBound]
        guard let key = declaration.range(of: #"encoding\s*=\s*["']([^"']*)["']"#, options: .regularExpression) else { return nil }
        return declaration[key].split(whereSeparator: { $0 == "\"" || $0 == "'" }).dropFirst().first.map(String.init) ?? ""
    }
}

private final class FlatElementCollector: NSObject, XMLParserDelegate {
    var values: [String: String] = [:]
    var problem: Problem?
    var sawRoot = false
    var rootClosed = false
    private let root: String
    private var depth = 0
    private var current: String?
    private var text = ""

    init(root: String) {
        self.root = root
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        guard !rootClosed else { return fail(parser, "a second root element <\(name)> follows the first") }
        if let attribute = attributes.keys.min() {
            return fail(parser, "element <\(name)> carries attribute \(attribute); the contract's elements carry none")
        }
        depth += 1
        switch depth {
        case 1:
            guard name == root else { return fail(parser, "the root element is <\(name)>; send <\(root)>") }
            sawRoot = true
        case 2:
            guard values[name] == nil else { return fail(parser, "element <\(name)> is given more than once") }
            current = name
            text = ""
        default: fail(parser, "element <\(name)> is nested too deep; send one level of fields under the root")
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if depth == 2 { text += string }
        if depth < 2, string.contains(where: { !$0.isWhitespace }) {
            fail(parser, depth == 0 ? "text outside the root element" : "text outside a field element")
        }
    }

    /// A CDATA section is text like any other (it was dropped: `<message><![CDATA[hi]]></message>`
    /// was accepted as a ping without its message).
    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        guard let string = String(validating: block, as: UTF8.self) else {
            return fail(parser, "a CDATA section is not valid UTF-8")
        }
        self.parser(parser, foundCharacters: string)
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if depth == 2, let current { values[current] = text }
        current = nil
        depth -= 1
        if depth == 0 { rootClosed = true }
    }

    func parser(_ parser: XMLParser, foundInternalSubsetDeclarationWithName name: String) {}

    private func fail(_ parser: XMLParser, _ detail: String) {
        problem = problem ?? Problem.malformed(detail)
        parser.abortParsing()
    }
}
