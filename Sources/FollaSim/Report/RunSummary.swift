import Foundation
import Histogram

/// The numbers of a run, for the terminal table, `--json` and the HTML report.
public struct RunSummary: Codable, Sendable {
    public struct Endpoint: Codable, Sendable {
        public var name: String
        public var requests: Int
        public var p50Ms: Double
        public var p90Ms: Double
        public var p99Ms: Double
        public var p999Ms: Double
        public var maxMs: Double
        public var statuses: [String: Int]
        /// [percentile, ms] at `RunSummary.distributionPercentiles`, for the distribution plot.
        public var percentiles: [[Double]]
        /// This endpoint's requests and latency second by second (by due time).
        public var seconds: [Second]
    }

    /// A hotspot of the scenario, to name places on the map.
    public struct Hotspot: Codable, Sendable {
        public var name: String
        public var lat: Double
        public var lon: Double
    }

    public struct Second: Codable, Sendable {
        public var second: Int
        public var requests: Int
        public var p50Ms: Double
        public var p99Ms: Double
    }

    public struct Check: Codable, Sendable {
        public var hotspot: String
        public var expected: Int
        public var uncertain: Int
        public var server: Int
        public var ok: Bool

        public init(hotspot: String, expected: Int, uncertain: Int, server: Int, ok: Bool) {
            self.hotspot = hotspot
            self.expected = expected
            self.uncertain = uncertain
            self.server = server
            self.ok = ok
        }
    }

    public var scenario: String
    public var phones: Int
    public var seed: UInt64
    public var durationS: Double
    public var intendedRequests: Int
    public var completedRequests: Int
    public var achievedRps: Double
    public var intendedRps: Double
    public var unexpected: Int
    public var errors: [String: Int]
    public var dispatchLagP99Ms: Double
    public var generatorBottleneck: Bool
    public var endpoints: [Endpoint]
    public var seconds: [Second]
    public var verification: [Check]?
    public var verified: Bool?
    public var follaCheck: String?
    public var latencyPercentiles: [[Double]]
    public var groupsSample: [[Double]]
    /// What the server's `/metrics` counted during the run (when it serves them).
    public var server: ServerCounts?
    /// Requests that got an HTTP answer (whatever its status).
    public var answered: Int { endpoints.reduce(0) { $0 + $1.statuses.values.reduce(0, +) } }
    /// What the privacy policy cost honest people in this run (with --verify).
    public var privacyCost: PrivacyCost?
    /// The scenario's hotspots, drawn and named on the map.
    public var hotspots: [Hotspot]

    /// The percentiles kept per endpoint: the steps of an HdrHistogram percentile plot,
    /// evenly spread on its log(1/(1-p)) axis. The report draws those the sample supports.
    public static let distributionPercentiles: [Double] = {
        let halfDecades = (0...10).map { (100 * (1 - pow(10, -Double($0) / 2)) * 1e4).rounded() / 1e4 }
        return Set(halfDecades + [25, 50, 75, 95, 99.5, 99.95, 99.995]).sorted()
    }()

    public init(scenario: Scenario, elapsed: Double, book: LatencyBook.Snapshot, intended: Int) {
        self.scenario = scenario.name
        phones = scenario.phones
        seed = scenario.seed
        durationS = elapsed
        intendedRequests = intended
        completedRequests = book.endpoints.values.reduce(0) { $0 + Int($1.totalCount) }
        achievedRps = Double(completedRequests) / max(elapsed, 0.001)
        intendedRps = Double(intended) / max(scenario.durationS, 0.001)
        unexpected = book.unexpected
        errors = book.errors
        dispatchLagP99Ms = book.dispatchLag.totalCount > 0 ? book.dispatchLag.ms(99) : 0
        generatorBottleneck = dispatchLagP99Ms > 50
        endpoints = book.endpoints.sorted { $0.key < $1.key }.map { name, h in
            Endpoint(name: name, requests: Int(h.totalCount), p50Ms: h.ms(50), p90Ms: h.ms(90), p99Ms: h.ms(99),
                     p999Ms: h.ms(99.9), maxMs: Double(h.max) / 1000,
                     statuses: Dictionary(uniqueKeysWithValues: (book.statuses[name] ?? [:]).map { (String($0.key), $0.value) }),
                     percentiles: Self.distributionPercentiles.map { [$0, h.ms($0)] },
                     seconds: (book.perEndpointSecond[name] ?? [:]).sorted { $0.key < $1.key }.map { s, h in
                         Second(second: s, requests: Int(h.totalCount), p50Ms: h.ms(50), p99Ms: h.ms(99))
                     })
        }
        seconds = book.perSecond.sorted { $0.key < $1.key }.map { s, h in
            Second(second: s, requests: Int(h.totalCount), p50Ms: h.ms(50), p99Ms: h.ms(99))
        }
        var all = LatencyBook.histogram()
        for h in book.endpoints.values { all.add(h) }
        latencyPercentiles = [50, 75, 90, 95, 99, 99.9, 99.99, 100].map { [$0, all.totalCount > 0 ? all.ms($0) : 0] }
        groupsSample = []
        hotspots = scenario.hotspots.map { Hotspot(name: $0.name, lat: $0.lat, lon: $0.lon) }
    }

    /// The table printed at the end of a run.
    public func table() -> String {
        var out = "\nFolla simulator — \(scenario): \(phones) phones, seed \(seed), \(String(format: "%.1f", durationS)) s\n"
        out += "requests: \(completedRequests) completed of \(intendedRequests) intended; "
        out += String(format: "%.1f req/s achieved vs %.1f intended\n", achievedRps, intendedRps)
        out += pad("endpoint", 20) + pad("requests", 10) + pad("p50 ms", 9) + pad("p90 ms", 9) + pad("p99 ms", 9)
            + pad("p99.9 ms", 10) + pad("max ms", 9) + "statuses\n"
        for e in endpoints {
            out += pad(e.name, 20) + pad("\(e.requests)", 10) + num(e.p50Ms) + num(e.p90Ms) + num(e.p99Ms) + pad(String(format: "%.1f", e.p999Ms), 10)
                + num(e.maxMs) + e.statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ") + "\n"
        }
        out += "unexpected answers: \(unexpected)\n"
        for (k, v) in errors.sorted(by: { $0.value > $1.value }).prefix(10) { out += "  error \(v)× \(k)\n" }
        out += String(format: "dispatch lag p99: %.1f ms", dispatchLagP99Ms)
        out += generatorBottleneck ? "  WARNING: the generator itself fell behind; its numbers understate the load\n" : "\n"
        if let verification {
            out += "verification (people per hotspot, simulator vs server):\n"
            for c in verification {
                out += "  " + pad(c.hotspot, 28) + "expected \(c.expected)" + (c.uncertain > 0 ? "…\(c.expected + c.uncertain)" : "")
                    + "  server \(c.server)  " + (c.ok ? "ok" : "MISMATCH") + "\n"
            }
            out += (verified == true ? "verification passed\n" : "verification FAILED\n")
        }
        if let server {
            out += String(format: "server's /metrics: %.0f requests answered (the simulator received %d answers)", server.totalRequests, answered)
            out += "; check-ins " + server.checkIns.sorted { $0.key < $1.key }.map { "\($0.key) \(Int($0.value))" }.joined(separator: ", ")
            if !server.refusals.isEmpty {
                out += "; refusals " + server.refusals.sorted { $0.key < $1.key }.map { "\($0.key) \(Int($0.value))" }.joined(separator: ", ")
            }
            out += "\n"
        }
        if let follaCheck { out += "folla check: \(follaCheck)\n" }
        if let privacyCost { out += privacyCost.line + "\n" }
        return out
    }

    private func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
    private func num(_ d: Double) -> String { pad(String(format: "%.1f", d), 9) }
}
