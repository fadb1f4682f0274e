import FollaCore
import Hummingbird

extension Request {
    /// Query parameters as `Fields` (strings), refusing a parameter given twice.
    func queryFields(excluding: Set<String> = []) throws(Problem) -> Fields {
        var values: [String: FieldValue] = [:]
        for (name, value) in uri.queryParameters {
            let key = String(name)
            guard !excluding.contains(key) else { continue }
            guard values[key] == nil else {
                throw Problem(.badRequest, type: "invalid-field", title: "Invalid request field",
                              detail: "\(key) is given more than once", field: key)
            }
            values[key] = .string(String(value))
        }
        return Fields(values, source: .query)
    }
}
