import FollaCore
import PropertyBased
import Testing

@Suite struct DeviceIDTests {
    @Test func acceptsUDIDsAndUUIDsAndNormalizesCase() throws {
        let udid = try DeviceID("F00DFACEF00DFACEF00DFACEF00DFACEF00DFACE")
        #expect(udid.rawValue == "f00dfacef00dfacef00dfacef00dfacef00dface")
        #expect(try DeviceID("123E4567-E89B-12D3-A456-426614174000").rawValue == "123e4567-e89b-12d3-a456-426614174000")
        #expect("\(udid)" == "DeviceID(redacted)")
    }

    @Test(arguments: ["", "short", String(repeating: "a", count: 65), "0123456789abcdef 0", "0123456789abcdef_0",
                      "0123456789abcdefé0", "0123456789abcdef\u{0}"])
    func rejects(_ text: String) {
        #expect(throws: FieldError.self) { try DeviceID(text) }
    }

    @Test func anyAlphabetStringOfValidLengthIsAccepted() async {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")
        await propertyCheck(input: Gen.int(in: 0..<alphabet.count).array(of: 16...64)) { picks in
            let text = String(picks.map { alphabet[$0] })
            #expect((try? DeviceID(text))?.rawValue == text.lowercased())
        }
    }
}

@Suite struct MessageTextTests {
    /// Counted in code points, as the contract's `maxLength` and the database count: 140
    /// flags (280 code points) pass, 141 do not. Counted as graphemes, 280 flags (560 code
    /// points) passed, against the contract.
    @Test func trimsAndCountsCodePointsNotBytes() throws {
        #expect(try MessageText("  ciao  ").text == "ciao")
        #expect(try MessageText(String(repeating: "é", count: 280)).text.count == 280)
        #expect(try MessageText(String(repeating: "🇮🇹", count: 140)).text.unicodeScalars.count == 280)
        #expect(throws: FieldError.self) { try MessageText(String(repeating: "🇮🇹", count: 141)) }
        #expect(throws: FieldError.self) { try MessageText(String(repeating: "a", count: 281)) }
        #expect(try MessageText("line one\nline two").text == "line one\nline two")
    }

    // A byte order mark alone is blank to the contract's pattern (ECMAScript's \s holds it).
    @Test(arguments: ["", "   \n\t ", "esc\u{1B}[2J", "nul\u{0}", "del\u{7F}", "c1\u{85}x", "nonchar\u{FFFE}",
                      "\u{FEFF}", " \u{FEFF}\u{3000} ", "astral\u{1FFFF}",
                      // Invisible only (outside probe, session 35: taken and shown as blank entries).
                      "\u{200B}\u{200B}", "\u{3164}", "\u{2800}", "\u{200D}\u{FE0F}", " \u{2060}\u{115F} ", "\u{AD}", "\u{180B}\u{180F}",
                      // Astral and other invisible format characters only (outside probe, session 41:
                      // each taken and stored as a message): a tag character, tag space, language
                      // tag, variation selector 17, U+FFF0, an interlinear annotation anchor, a
                      // musical and an Egyptian and a shorthand format control.
                      "\u{E0041}", "\u{E0020}", "\u{E0001}", "\u{E0100}", "\u{FFF0}", "\u{FFF9}", "\u{1D173}", "\u{13430}",
                      "\u{1BCA0}", " \u{E0041}\u{E0042} ",
                      // Bidirectional overrides, embeddings and isolates (shown reordered on walls).
                      "\u{202E}abc", "ab\u{202A}c", "x\u{2066}y\u{2069}",
                      // Controls at either end, which trimming took away (outside probe, session 39):
                      // the contract's pattern refuses them wherever they stand.
                      "a\u{85}", "a\u{0B}", "a\u{0C}", "a\r", "a\r\n", "\u{85}a", "\r\na"])
    func rejects(_ text: String) {
        #expect(throws: FieldError.self) { try MessageText(text) }
    }

    /// What right-to-left writing and emoji need stays allowed: the implicit direction marks
    /// and the joiners and selectors inside visible text.
    /// (A flag of a country's part is a black flag and tag characters: the tags, invisible
    /// alone, stay allowed beside it.)
    @Test(arguments: ["a\u{200F}b", "\u{05E9}\u{05DC}\u{05D5}\u{05DD}\u{200E} 42", "👩\u{200D}💻", "❤\u{FE0F}", "\u{0627}\u{061C}1",
                      "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", "\u{0600}"])
    func keepsWhatWritingNeeds(_ text: String) throws {
        #expect(try MessageText(text).text == text)
    }

    /// The same rules for a venue's name (no newline there).
    @Test func venueNamesFollowTheSameRules() throws {
        #expect(TextRules.problem(with: "\u{3164}", newlines: false) != nil)
        #expect(TextRules.problem(with: "Piazza\u{202E}", newlines: false)?.contains("U+202E") == true)
        #expect(TextRules.problem(with: "Piazza Maggiore", newlines: false) == nil)
        let square: [Coordinate] = [.init(latitude: 44, longitude: 11), .init(latitude: 44, longitude: 11.001),
                                    .init(latitude: 44.001, longitude: 11.001), .init(latitude: 44, longitude: 11)]
        #expect(throws: FieldError.self) { try VenueDefinition(slug: "piazza", name: "ab\u{85}", ring: square) }
        #expect(throws: FieldError.self) { try VenueDefinition(slug: "piazza", name: "ab\n", ring: square) }
        #expect(try VenueDefinition(slug: "piazza", name: "  Piazza Maggiore ", ring: square).name == "Piazza Maggiore")
    }
}

@Suite struct CheckInRequestTests {
    func fields(_ values: [String: FieldValue]) -> Fields { Fields(values) }

    @Test func demographicsNeedBothAgeAndSex() throws {
        let base: [String: FieldValue] = ["device_id": .string("0123456789abcdef0123"), "lat": .number(44), "lon": .string("11.5")]
        var v = base
        v["age"] = .number(30)
        #expect(try CheckInRequest(fields: fields(v)).demographics == nil)
        v["sex"] = .string("2")
        #expect(try CheckInRequest(fields: fields(v)).demographics == Demographics(age: 30, sex: .female))
        v["sex"] = .string("M")
        #expect(try CheckInRequest(fields: fields(v)).demographics == Demographics(age: 30, sex: .male))
        let request = try CheckInRequest(fields: fields(base))
        #expect(request.position == Coordinate(latitude: 44, longitude: 11.5))
    }

    @Test func namesTheFieldAtFault() {
        let cases: [([String: FieldValue], String)] = [
            (["lat": .number(1), "lon": .number(1)], "device_id"),
            (["device_id": .string("0123456789abcdef0123"), "lat": .number(.nan), "lon": .number(1)], "lat"),
            (["device_id": .string("0123456789abcdef0123"), "lat": .number(1), "lon": .bool(true)], "lon"),
            (["device_id": .string("0123456789abcdef0123"), "lat": .number(1), "lon": .number(1), "age": .number(121), "sex": .string("f")], "age"),
            (["device_id": .string("0123456789abcdef0123"), "lat": .number(1), "lon": .number(1), "zzz": .null], "zzz"),
        ]
        for (values, field) in cases {
            #expect(throws: FieldError.self, "\(field)") { try CheckInRequest(fields: fields(values)) }
            do {
                _ = try CheckInRequest(fields: fields(values))
            } catch {
                #expect(error.field == field)
            }
        }
    }

    @Test func subnormalCoordinatesAreZero() throws {
        let r = try CheckInRequest(fields: fields(["device_id": .string("0123456789abcdef0123"), "lat": .number(-1.1), "lon": .number(5e-324)]))
        #expect(r.position == Coordinate(latitude: -1.1, longitude: 0))
    }

    @Test func coordinatesInRangeAlwaysValidate() async {
        await propertyCheck(input: Gen.double(in: -90...90), Gen.double(in: -180...180)) { lat, lon in
            let r = try? CheckInRequest(fields: fields(["device_id": .string("0123456789abcdef0123"), "lat": .number(lat), "lon": .number(lon)]))
            #expect(r?.position == Coordinate(latitude: Coordinate.flushingTiny(lat), longitude: Coordinate.flushingTiny(lon)))
        }
    }

    @Test func statsAverageOnlyOverReporters() {
        #expect(PlaceStats(people: 5, reporters: 2, ageSum: 61, male: 1, female: 1).averageAge == 30.5)
        #expect(PlaceStats(people: 5, reporters: 0, ageSum: 0, male: 0, female: 0).averageAge == nil)
    }
}

@Suite struct MessageTextLimitTests {
    /// One grapheme with a thousand combining marks must not reach the database's limit.
    @Test func combiningMarkFloodIsRefused() {
        let zalgo = "a" + String(repeating: "\u{0301}", count: 1000)
        #expect(zalgo.count == 1)
        #expect(throws: FieldError.self) { try MessageText(zalgo) }
        #expect((try? MessageText("e\u{0301}\u{0302}")) != nil)
    }
}

/// Numbers that arrive as text (query strings, forms, XML, JSON strings) are plain decimals:
/// no hex, no NaN or infinity words, nothing after a NUL.
@Suite struct DecimalTextTests {
    @Test(arguments: ["44\u{0}garbage", "0x2C.7D", "0x1p5", "0x10", "nan", "inf", "infinity", "1e", ".", "-", "1.2.3", "4 4", "١٢"])
    func refusesWhatIsNotADecimal(_ text: String) {
        #expect(throws: FieldError.self) { try Fields(["lat": .string(text)]).double("lat") }
    }

    @Test(arguments: [("44.4938", 44.4938), ("-1.5e2", -150), ("+3", 3), (".5", 0.5), ("5.", 5), ("1E+2", 100)])
    func readsDecimals(_ text: String, _ value: Double) throws {
        #expect(try Fields(["lat": .string(text)]).double("lat") == value)
    }

    /// Text numbers are trimmed of whitespace of any kind, ASCII or not, at either end (the
    /// common case, printable ASCII at both ends, skips the walk).
    @Test(arguments: [(" 44.5", 44.5), ("44.5\t", 44.5), ("\u{A0}44.5", 44.5), ("44.5\u{2003}", 44.5),
                      ("\r\n12\n", 12), ("7", 7), ("-0.25", -0.25)])
    func trimsWhitespaceOfAnyKind(_ text: String, _ value: Double) throws {
        #expect(try Fields(["lat": .string(text)], source: .query).double("lat") == value)
        if value == value.rounded() {
            #expect(try Fields(["n": .string(text)], source: .query).integer("n", in: -100...100) == Int(value))
        }
    }

    @Test func namesTheRealProblem() {
        do {
            _ = try Fields(["radius": .string("1e400")]).double("radius")
            Issue.record("1e400 was accepted")
        } catch {
            #expect(error.field == "radius" && error.reason.contains("out of range"))
        }
        do {
            _ = try Fields(["id": .string("0x10")]).integer("id", in: 1...100)
            Issue.record("0x10 was accepted")
        } catch {
            #expect(error.reason.contains("whole number between 1 and 100") && error.reason.contains("0x10"))
        }
    }
}
