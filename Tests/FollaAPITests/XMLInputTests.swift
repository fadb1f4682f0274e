import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// XML bodies are UTF-8, well-formed, carry no DTD in any encoding, and have the root the
/// contract names. Before, a DTD sent in UTF-16, UTF-32 or UTF-7 slipped past the refusal
/// and the check-in was written; an unclosed root, two roots or text after the root were
/// accepted; ISO-8859-1 was garbled; any root element was taken for a check-in.
@Suite struct XMLInputTests {
    static let fields = "<device_id>0123456789abcdef0123456789abcdef01234567</device_id><lat>44.4938</lat><lon>11.343</lon>"
    static let withDTD = #"<?xml version="1.0"?><!DOCTYPE checkin [<!ENTITY x "y">]><checkin>\#(fields)</checkin>"#

    static func utf16(_ text: String, bigEndian: Bool, bom: Bool) -> [UInt8] {
        var out: [UInt8] = bom ? (bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]) : []
        for unit in text.utf16 {
            out += bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        return out
    }

    static func utf32LE(_ text: String) -> [UInt8] {
        [0xFF, 0xFE, 0, 0] + text.unicodeScalars.flatMap { s in (0..<4).map { UInt8((s.value >> (8 * $0)) & 0xFF) } }
    }

    @Test(arguments: [
        ("UTF-16LE with a BOM", utf16(withDTD, bigEndian: false, bom: true)),
        ("UTF-16BE without a BOM", utf16(withDTD.replacingOccurrences(of: "<?xml version=\"1.0\"?>", with: "<?xml version=\"1.0\" encoding=\"UTF-16\"?>"), bigEndian: true, bom: false)),
        ("UTF-32LE", utf32LE(withDTD)),
        ("UTF-7", Array(#"<?xml version="1.0" encoding="UTF-7"?>+ADw-!DOCTYPE checkin +AFs-+ADw-!ENTITY x +ACI-y+ACI-+AD4-+AF0-+AD4-<checkin>\#(fields)</checkin>"#.utf8)),
        ("ISO-8859-1", Array(#"<?xml version="1.0" encoding="ISO-8859-1"?><checkin>\#(fields)</checkin>"#.utf8)),
    ])
    func otherEncodingsAreRefused(name: String, bytes: [UInt8]) async throws {
        try await AppFixture.run { f in
            for path in ["/v1/checkins", "/sendData.php", "/v1/messages/1/reports"] {
                let r = try await f.post(path, bytes: bytes, contentType: "application/xml")
                #expect(r.status == .unsupportedMediaType, "\(name) on \(path): \(r.status) \(String(buffer: r.body))")
            }
            #expect(try await f.rowCounts() == [0, 0, 0], "\(name) was written")
        }
    }

    @Test func aCharsetOtherThanUTF8IsRefused() async throws {
        try await AppFixture.run { f in
            let r = try await f.post("/v1/checkins", "<checkin>\(Self.fields)</checkin>", contentType: "application/xml; charset=iso-8859-1")
            #expect(r.status == .unsupportedMediaType)
            #expect(try await f.rowCounts() == [0, 0, 0])
        }
    }

    @Test(arguments: [
        ("<checkin>\(fields)", "root never closed"),
        ("<checkin>\(fields)</checkin><d/>", "two roots"),
        ("<checkin>\(fields)</checkin>garbage", "text after the root"),
        ("garbage<checkin>\(fields)</checkin>", "text before the root"),
        ("<checkin>garbage\(fields)</checkin>", "text between the fields"),
    ])
    func malformedDocumentsAreRefused(body: String, what: String) async throws {
        try await AppFixture.run { f in
            let r = try await f.post("/v1/checkins", body, contentType: "application/xml")
            #expect(r.status == .badRequest, "\(what): \(r.status)")
            #expect(try await f.rowCounts() == [0, 0, 0], "\(what) was written")
        }
    }

    /// CDATA is text: it was dropped, so a CDATA `device_id` was "required" and a CDATA
    /// message was silently left out of an accepted check-in.
    @Test func cdataSectionsAreText() async throws {
        try await AppFixture.run { f in
            let id = "<device_id><![CDATA[0123456789abcdef]]>0123456789abcdef01234567</device_id>"
            let position = "<lat><![CDATA[44.4938]]></lat><lon>11.343</lon>"
            let plain = try await f.post("/v1/checkins", "<checkin>\(id)\(position)</checkin>", contentType: "application/xml")
            #expect(plain.status == .ok, "\(String(buffer: plain.body))")
            let message = "<message><![CDATA[ciao <a tutti>]]></message>"
            let withMessage = try await f.post("/v1/checkins", "<checkin>\(id)\(position)\(message)</checkin>", contentType: "application/xml")
            #expect(withMessage.status == .ok, "\(withMessage.status) \(String(buffer: withMessage.body))")
            #expect(try await f.rowCounts() == [1, 1, 1])
            let messages = try await f.db.query("SELECT body FROM message", logger: TestCluster.logger).collect()
            #expect(try messages.first?.decode(String.self) == "ciao <a tutti>")
        }
    }

    @Test func utf8DocumentsAreRead() async throws {
        try await AppFixture.run { f in
            let declared = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n<checkin>\(Self.fields)</checkin>\n"
            let r = try await f.post("/v1/checkins", declared, contentType: "application/xml; charset=UTF-8")
            #expect(r.status == .ok, "\(String(buffer: r.body))")
            #expect(try await f.rowCounts()[0] == 1)
        }
    }

    /// The contract names each XML body's root (`xml.name`): `<checkin>`, `<message>`,
    /// `<report>`. Another root is a 400 that names the right one, and nothing is written.
    /// Attributes, namespace declarations among them, are no part of the contract's
    /// elements: refused with a 400 that names one, and nothing written (an outside probe,
    /// session 41: `<checkin xmlns="urn:x">`, `<checkin foo="1">` and `<device_id x="1">`
    /// were taken with the attribute unread).
    @Test func attributesAreRefused() async throws {
        try await AppFixture.run { f in
            let bodies = [
                ("<checkin xmlns=\"urn:x\">\(Self.fields)</checkin>", "xmlns"),
                ("<checkin foo=\"1\">\(Self.fields)</checkin>", "foo"),
                ("<checkin><device_id x=\"1\">0123456789abcdef0123456789abcdef01234567</device_id><lat>44.4938</lat><lon>11.343</lon></checkin>", "x"),
            ]
            for (body, attribute) in bodies {
                let r = try await f.post("/v1/checkins", body, contentType: "application/xml")
                #expect(r.status == .badRequest, "\(body): \(r.status)")
                #expect((try f.json(r)["detail"] as? String)?.contains("attribute \(attribute)") == true, "\(String(buffer: r.body))")
            }
            #expect(try await f.rowCounts() == [0, 0, 0], "a body with attributes was written")
            #expect(try await f.post("/v1/checkins", "<checkin>\(Self.fields)</checkin>", contentType: "application/xml").status == .ok)
        }
    }

    @Test func theRootIsTheOneTheContractNames() async throws {
        try await AppFixture.run { f in
            let device = "<device_id>0123456789abcdef0123456789abcdef01234567</device_id>"
            let refused = [
                ("/v1/checkins", "<c>\(Self.fields)</c>", "checkin"),
                ("/v1/checkins", "<message>\(Self.fields)</message>", "checkin"),
                ("/v1/messages", "<checkin>\(device)<text>ciao</text></checkin>", "message"),
                ("/v1/messages/1/reports", "<message>\(device)</message>", "report"),
            ]
            for (path, body, root) in refused {
                let r = try await f.post(path, body, contentType: "application/xml")
                #expect(r.status == .badRequest, "\(path) \(body): \(r.status)")
                #expect((try f.json(r)["detail"] as? String)?.hasSuffix("send <\(root)>") == true, "\(String(buffer: r.body))")
            }
            #expect(try await f.rowCounts() == [0, 0, 0], "a body under another root was written")
            // Under their own roots the same bodies get past the decoding.
            #expect(try await f.post("/v1/checkins", "<checkin>\(Self.fields)</checkin>", contentType: "application/xml").status == .ok)
            let message = try await f.post("/v1/messages", "<message>\(device)<text>ciao</text></message>", contentType: "application/xml")
            #expect(message.status != .badRequest, "\(String(buffer: message.body))")
            let report = try await f.post("/v1/messages/1/reports", "<report>\(device)</report>", contentType: "application/xml")
            #expect(report.status == .notFound, "\(String(buffer: report.body))")
        }
    }
}
