import FollaCore
import Foundation
import Hummingbird

extension Request {
    /// Query parameters as `Fields` (strings), refusing a parameter given twice; empty
    /// segments are skipped. Names are percent-decoded here (Hummingbird decodes values
    /// only), so `l%61t` is `lat`, and `lat` and `l%61t` together are the same field twice.
    func queryFields() throws(Problem) -> Fields {
        var values: [String: FieldValue] = [:]
        for (name, value) in uri.queryParameters {
            // (Foundation's decoding only where there is something to decode: it was ~2 % of a
            // dense groups answer's CPU.)
            guard let key = name.utf8.contains(UInt8(ascii: "%")) ? name.removingPercentEncoding : String(name) else {
                throw Problem(.badRequest, type: "invalid-field", title: "Invalid request field",
                              detail: "the query field name \(name) has a broken percent-encoding")
            }
            // An empty segment (`a=1&&b=2`, a trailing `&`) says nothing: skipped, as browsers do.
            guard !(key.isEmpty && value.isEmpty) else { continue }
            guard values[key] == nil else {
                throw Problem(.badRequest, type: "invalid-field", title: "Invalid request field",
                              detail: "\(key) is given more than once", field: key)
            }
            values[key] = .string(String(value))
        }
        return Fields(values, source: .query)
    }
}
