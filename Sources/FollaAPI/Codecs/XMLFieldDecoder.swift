import FollaCore
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// `<checkin><lat>44.49</lat>…</checkin>` → `Fields`: one level of child elements under
/// any root. DTDs and entities are refused outright; so are nesting and repeats.
enum XMLFieldDecoder {
    static func decode(_ data: Data) throws(Problem) -> Fields {
        guard let text = String(validating: data, as: UTF8.self) else {
            throw Problem.malformed("the body is not valid UTF-8")
        }
        // No DTDs at all: entity definitions are how XML bombs and external-entity reads
        // work, and a check-in never needs one.
        if text.range(of: "<!DOCTYPE", options: .caseInsensitive) != nil || text.range(of: "<!ENTITY", options: .caseInsensitive) != nil {
            throw Problem.malformed("document type declarations and entities are not accepted")
        }
        let collector = FlatElementCollector()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = collector
        let ok = parser.parse()
        if let problem = collector.problem { throw problem }
        guard ok, collector.sawRoot else {
            throw Problem.malformed("the body is not well-formed XML")
        }
        return Fields(collector.values.mapValues { .string($0) })
    }
}

private final class FlatElementCollector: NSObject, XMLParserDelegate {
    var values: [String: String] = [:]
    var problem: Problem?
    var sawRoot = false
    private var depth = 0
    private var current: String?
    private var text = ""

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        depth += 1
        switch depth {
        case 1: sawRoot = true
        case 2:
            guard values[name] == nil else { return fail(parser, "element <\(name)> is given more than once") }
            current = name
            text = ""
        default: fail(parser, "element <\(name)> is nested too deep; send one level of fields under the root")
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if depth == 2 { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if depth == 2, let current { values[current] = text }
        current = nil
        depth -= 1
    }

    func parser(_ parser: XMLParser, foundInternalSubsetDeclarationWithName name: String) {}

    private func fail(_ parser: XMLParser, _ detail: String) {
        problem = problem ?? Problem.malformed(detail)
        parser.abortParsing()
    }
}
