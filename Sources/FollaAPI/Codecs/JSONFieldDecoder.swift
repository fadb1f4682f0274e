import FollaCore
import Foundation

/// A JSON object body → `Fields`. Scalars keep their JSON type (a number stays a number),
/// nested values are kept as `.structured` so validation can reject them by name.
enum JSONFieldDecoder {
    static func decode(_ data: Data) throws(Problem) -> Fields {
        guard String(validating: data, as: UTF8.self) != nil else {
            throw Problem.malformed("the body is not valid UTF-8")
        }
        try StrictJSON.require(data)
        do {
            let object = try JSONDecoder().decode([String: JSONScalar].self, from: data)
            return Fields(object.mapValues(\.value), source: .typed)
        } catch DecodingError.typeMismatch {
            throw Problem.malformed("the body must be a JSON object")
        } catch {
            throw Problem.malformed("the body is not valid JSON")
        }
    }
}

private struct JSONScalar: Decodable {
    var value: FieldValue

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { value = .null }
        else if let b = try? c.decode(Bool.self) { value = .bool(b) }
        else if let d = try? c.decode(Double.self) { value = .number(d) }
        else if let s = try? c.decode(String.self) { value = .string(s) }
        else { value = .structured }
    }
}
