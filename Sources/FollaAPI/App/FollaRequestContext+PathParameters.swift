import FollaCore
import Foundation
import Hummingbird

extension FollaRequestContext {
    /// A path parameter, percent-decoded: `/v1/places/%31` names place 1 (RFC 3986 §2.1; the
    /// router matches the raw segment and hands it over undecoded).
    ///
    /// - Parameter name: the parameter's name in the route's path.
    /// - Throws: a 400 naming the parameter when its percent-encoding is broken (`%zz`) or it
    ///   decodes to a control character (`%00`).
    func pathParameter(_ name: String) throws(Problem) -> String {
        guard let raw = parameters.get(name) else {
            // Only a route naming a parameter it does not declare gets here: a bug, said so.
            throw Problem(.internalServerError, type: "internal", title: "Internal server error", detail: "no path parameter \(name)")
        }
        guard let decoded = raw.removingPercentEncoding else {
            throw .invalid(FieldError(name, "has a broken percent-encoding"))
        }
        // No id, slug or device id has one, and PostgreSQL refuses a NUL in text (a 500).
        guard !decoded.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalid(FieldError(name, "must not contain control characters"))
        }
        return decoded
    }

    /// A path parameter that names a row: a positive integer.
    ///
    /// - Parameter name: the parameter's name in the route's path.
    /// - Throws: a 400 naming the parameter when it is not a positive integer.
    func positiveID(_ name: String) throws(Problem) -> Int64 {
        guard let id = Int64(try pathParameter(name)), id > 0 else {
            throw .invalid(FieldError(name, "must be a positive integer"))
        }
        return id
    }
}
