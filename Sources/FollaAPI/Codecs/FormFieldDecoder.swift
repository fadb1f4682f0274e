import FollaCore
import Foundation

/// `application/x-www-form-urlencoded` → `Fields` (the original iPhone app posts forms).
enum FormFieldDecoder {
    static func decode(_ data: Data) throws(Problem) -> Fields {
        guard let text = String(validating: data, as: UTF8.self) else {
            throw Problem.malformed("the body is not valid UTF-8")
        }
        var values: [String: FieldValue] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decodeComponent(parts[0], what: "a field name")
            let value = try decodeComponent(parts.count > 1 ? parts[1] : "", what: "field \(name)")
            guard values[name] == nil else { throw Problem.malformed("field \(name) is given more than once") }
            values[name] = .string(value)
        }
        return Fields(values)
    }

    /// - Parameter what: names the component in the error (built only for one).
    private static func decodeComponent(_ raw: Substring, what: @autoclosure () -> String) throws(Problem) -> String {
        // Most components (numbers, hex ids) hold nothing to decode: Foundation's two passes
        // and the error's text, built for every field, were a tenth of sendData.php's CPU.
        if !raw.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) { return String(raw) }
        guard let decoded = raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
            throw Problem.malformed("\(what()) has invalid percent-encoding or is not valid UTF-8")
        }
        return decoded
    }
}
