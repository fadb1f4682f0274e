@testable import FollaSim
import Foundation
import Testing

/// The generator writes check-in bodies by hand: every string it puts in one must read back
/// as itself, whether it takes the quoted-as-is path or JSONSerialization's.
@Suite struct RequestBodyTests {
    @Test(arguments: ["f", "m", "Ciao a tutti!", "", "say \"hi\"", "back\\slash", "tab\there", "line\nbreak",
                      "piazza è piena", "🎉", "<script>alert(1)</script>", "\u{7F}del"])
    func aStringReadsBackAsItself(text: String) throws {
        let encoded = FollaClient.jsonString(text)
        let decoded = try JSONSerialization.jsonObject(with: Data("[\(encoded)]".utf8)) as? [String]
        #expect(decoded == [text], "\(encoded)")
    }
}
