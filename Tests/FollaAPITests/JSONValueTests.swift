import Testing

/// The comparison the answer tests rely on tells null from absent and booleans from numbers.
@Suite struct JSONValueTests {
    @Test func distinguishesWhatTheContractDistinguishes() throws {
        #expect(try JSONValue(#"{"a":null}"#) != JSONValue(#"{}"#))
        #expect(try JSONValue(#"{"a":true}"#) != JSONValue(#"{"a":1}"#))
        #expect(try JSONValue(#"{"a":"1"}"#) != JSONValue(#"{"a":1}"#))
        #expect(try JSONValue(#"[1,2]"#) != JSONValue(#"[2,1]"#))
        #expect(try JSONValue(#"{"a":200.0,"b":[]}"#) == JSONValue(#"{"b":[],"a":200}"#))
    }
}
