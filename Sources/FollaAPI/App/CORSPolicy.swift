/// Which other origins (a map client's page on another site) may read the public API from
/// a browser. Only public reads are ever shared: GET and HEAD on routes outside
/// `/v1/admin`, with no credentials; writes and admin routes get no CORS headers at all.
public struct CORSPolicy: Sendable, Equatable {
    public enum Origins: Sendable, Equatable {
        /// Any origin (`Access-Control-Allow-Origin: *`): the public reads are public anyway.
        case any
        /// Only these origins, exactly as browsers send them (`https://map.example.org`).
        case only(Set<String>)
        /// No CORS: browsers on other origins cannot read the API.
        case none
    }

    public var origins: Origins

    public init(origins: Origins = .any) {
        self.origins = origins
    }

    /// From a flag: `*`, `none`, or a comma-separated list of origins.
    /// - Throws: a message naming the first entry that is not a `scheme://host[:port]` origin.
    public init(parsing text: String) throws(CORSPolicyError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed {
        case "*": origins = .any
        case "", "none": origins = .none
        default:
            var set: Set<String> = []
            for part in trimmed.split(separator: ",") {
                // Browsers send scheme and host in lower case.
                let origin = part.trimmingCharacters(in: .whitespaces).lowercased()
                guard Self.isOrigin(origin) else { throw CORSPolicyError(entry: origin) }
                set.insert(origin)
            }
            origins = .only(set)
        }
    }

    /// Whether a request from `origin` may read.
    public func allows(_ origin: String) -> Bool {
        switch origins {
        case .any: true
        case .only(let set): set.contains(origin)
        case .none: false
        }
    }

    /// `http(s)://host[:port]` with no path, query or trailing slash: what an `Origin` header holds.
    static func isOrigin(_ s: String) -> Bool {
        for scheme in ["http://", "https://"] where s.hasPrefix(scheme) {
            let rest = s.dropFirst(scheme.count)
            return !rest.isEmpty && rest.allSatisfy { $0.isLetter || $0.isNumber || "-.:[]".contains($0) }
        }
        return false
    }
}

/// A `--cors-origins` entry that is not an origin.
public struct CORSPolicyError: Error, CustomStringConvertible {
    public let entry: String
    public var description: String {
        "\"\(entry)\" is not an origin (scheme://host[:port], e.g. https://map.example.org); use * for any, none for no CORS"
    }
}
