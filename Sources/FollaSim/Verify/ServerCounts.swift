import Foundation

/// What the server's own `/metrics` says it answered during a run: scraped before and after,
/// so the run can be checked from the server's side too (the server counts every request
/// it answered, so it must have counted at least the answers the simulator received).
public struct ServerCounts: Codable, Sendable, Equatable {
    /// Requests answered, by route pattern.
    public var requests: [String: Double] = [:]
    /// Check-ins recorded, by outcome.
    public var checkIns: [String: Double] = [:]
    /// Refusals, by reason.
    public var refusals: [String: Double] = [:]

    public init() {}

    public var totalRequests: Double { requests.values.reduce(0, +) }

    /// Reads the three families out of exposition text. A filter over the lines, not a
    /// full Prometheus parser (no Swift one is available here): counters of the simple form
    /// `name{label="value",…} number`, which is all `GET /metrics` writes for them. The
    /// server's test suite checks that text with the Prometheus project's own parser.
    public init(exposition text: String) {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let brace = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}"),
                  let value = Double(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces))
            else { continue }
            let name = line[..<brace]
            let labels = Self.labels(line[line.index(after: brace)..<close])
            switch name {
            case "folla_http_requests_total": requests[labels["route"] ?? "?", default: 0] += value
            case "folla_checkins_total": checkIns[labels["outcome"] ?? "?", default: 0] += value
            case "folla_refusals_total": refusals[labels["reason"] ?? "?", default: 0] += value
            default: break
            }
        }
    }

    /// What was counted between `earlier` and this scrape.
    public func since(_ earlier: ServerCounts) -> ServerCounts {
        func change(_ now: [String: Double], _ then: [String: Double]) -> [String: Double] {
            now.merging(then.mapValues { -$0 }, uniquingKeysWith: +).filter { $0.value != 0 }
        }
        var d = ServerCounts()
        d.requests = change(requests, earlier.requests)
        d.checkIns = change(checkIns, earlier.checkIns)
        d.refusals = change(refusals, earlier.refusals)
        return d
    }

    /// `a="x",b="y"` (values without escaped quotes: route patterns, outcomes, statuses).
    static func labels(_ text: Substring) -> [String: String] {
        var out: [String: String] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            out[String(parts[0])] = String(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        }
        return out
    }
}
