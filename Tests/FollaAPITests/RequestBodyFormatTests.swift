@testable import FollaAPI
import Testing

/// The Content-Type header picks the body's reader: case and HTTP's optional whitespace do
/// not matter, a charset other than UTF-8 or an unknown media type is refused (415).
@Suite struct RequestBodyFormatTests {
    @Test func mediaTypesAndParametersAreReadLoosely() throws {
        let accepted: [(String, RequestBodyFormat)] = [
            ("application/json", .json), (" Application/JSON ; charset=UTF-8", .json), ("text/json;\tcharset=\"utf8\"", .json),
            ("application/x-www-form-urlencoded", .form), ("APPLICATION/X-WWW-FORM-URLENCODED; charset=utf-8", .form),
            ("text/xml", .xml), ("\tapplication/xml\t", .xml), ("application/json;", .json),
        ]
        for (header, format) in accepted {
            #expect(try RequestBodyFormat(contentType: header) == format, "\(header)")
        }
    }

    @Test func otherCharsetsAndMediaTypesAreRefused() {
        for header in [nil, "", "text/plain", "application/json; charset=latin1", "application/jsonx", "application/ json",
                       "application/json; charset", "application/json; charset=", "application/json; utf-8"] as [String?] {
            #expect(throws: Problem.self, "\(header ?? "nil")") { try RequestBodyFormat(contentType: header) }
        }
    }
}
