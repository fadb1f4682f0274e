import FollaCore
import Foundation

/// A JSON object body → `Fields`. Scalars keep their JSON type (a number stays a number),
/// nested values are kept as `.structured` so validation can reject them by name.
enum JSONFieldDecoder {
    static func decode(_ data: Data) throws(Problem) -> Fields {
        try StrictJSON.requireUTF8(data)
        return Fields(try StrictJSON.members(of: data), source: .typed)
    }
}
