import FollaCore
import Hummingbird

extension Request {
    /// Query parameters as `Fields` (strings), refusing a parameter given twice; empty
    /// segments are skipped.
    func queryFields(excluding: Set<String> = []) throws(Problem) -> Fields {
        var values: [String: FieldValue] = [:]
        for (name, value) in uri.queryParameters {
            let key = String(name)
            // An empty segment (`a=1&&b=2`, a trailing `&`) says nothing: skipped, as browsers do.
            guard !excluding.contains(key), !(key.isEmpty && value.isEmpty) else { continue }
            guard values[key] == nil else {
                throw Problem(.badRequest, type: "invalid-field", title: "Invalid request field",
                              detail: "\(key) is given more than once", field: key)
            }
            values[key] = .string(String(value))
        }
        return Fields(values, source: .query)
    }
}
