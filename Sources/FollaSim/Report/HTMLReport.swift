import Foundation

/// A self-contained HTML page (inline SVG, no scripts, no external assets) that reads like
/// a performance report: the summary table, then latency over time (p99 and p50, one line
/// per endpoint), throughput over time, the latency distribution as an HdrHistogram
/// percentile plot, and a map of the groups.
///
/// Each endpoint keeps one colour in every chart. Every chart has ticks, units and a legend:
/// a chart without them cannot be compared with the next run's.
public enum HTMLReport {
    public static func render(_ s: RunSummary) -> String {
        let colours = Dictionary(uniqueKeysWithValues: s.endpoints.enumerated().map {
            ($0.element.name, SVGChart.palette[$0.offset % SVGChart.palette.count])
        })
        var html = """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><title>Folla simulator — \(esc(s.scenario))</title>
        <style>body{font-family:system-ui,sans-serif;margin:2em;color:#111;max-width:940px}svg{display:block;margin:.4em 0 1.6em}
        table{border-collapse:collapse}td,th{padding:.2em .8em;border-bottom:1px solid #eee;text-align:right}th:first-child,td:first-child{text-align:left}
        h2{font-size:1.15em;margin-bottom:.1em}p.note{color:#555;margin:.2em 0}
        .bad{color:#b91c1c}.ok{color:#15803d}</style></head><body>
        <h1>Folla simulator — \(esc(s.scenario))</h1>
        <p>\(s.phones) phones, seed \(s.seed), \(String(format: "%.1f", s.durationS)) s;
        \(s.completedRequests) requests (\(String(format: "%.1f", s.achievedRps)) req/s achieved, \(String(format: "%.1f", s.intendedRps)) intended);
        unexpected answers: <b class="\(s.unexpected == 0 ? "ok" : "bad")">\(s.unexpected)</b>;
        dispatch lag p99 \(String(format: "%.1f", s.dispatchLagP99Ms)) ms\(s.generatorBottleneck ? " <b class=bad>(generator was the bottleneck)</b>" : "").</p>
        <table><tr><th>endpoint</th><th>requests</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>max ms</th></tr>
        """
        for e in s.endpoints {
            html += "<tr><td>\(esc(e.name))</td><td>\(e.requests)</td>" + [e.p50Ms, e.p90Ms, e.p99Ms, e.p999Ms, e.maxMs]
                .map { "<td>\(String(format: "%.1f", $0))</td>" }.joined() + "</tr>"
        }
        html += "</table>"
        let note = "<p class=note>Latency is measured from when a request was due, so queueing counts; seconds are by due time.</p>"
        html += "<h2>p99 latency over time, by endpoint</h2>" + note + latencyOverTime(s, colours, \.p99Ms, "p99")
        html += "<h2>p50 latency over time, by endpoint</h2>" + latencyOverTime(s, colours, \.p50Ms, "p50")
        html += "<h2>Throughput over time</h2>" + throughput(s, colours)
        html += "<h2>Latency distribution, by endpoint</h2>"
            + "<p class=note>HdrHistogram percentile plot: each further nine gets the same width; a line is drawn as far as its endpoint's sample reaches.</p>"
            + distribution(s, colours)
        if !s.groupsSample.isEmpty || !s.hotspots.isEmpty {
            html += "<h2>Where the groups were</h2>" + MapPlot(groups: s.groupsSample, hotspots: s.hotspots).render()
        }
        if let v = s.verification {
            html += "<h2>Verification: \(s.verified == true ? "<span class=ok>passed</span>" : "<span class=bad>FAILED</span>")</h2><table><tr><th>hotspot</th><th>expected</th><th>near TTL</th><th>server</th></tr>"
            for c in v {
                html += "<tr class=\(c.ok ? "ok" : "bad")><td>\(esc(c.hotspot))</td><td>\(c.expected)</td><td>\(c.uncertain)</td><td>\(c.server)</td></tr>"
            }
            html += "</table>"
        }
        return html + "</body></html>\n"
    }

    static func esc(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The time axis every over-time chart shares: the run's whole duration.
    static func timeAxis(_ s: RunSummary) -> ChartAxis {
        let last = s.endpoints.flatMap(\.seconds).map(\.second).max() ?? 0
        return .linear("time since start (s)", upTo: max(s.durationS, Double(last + 1)))
    }

    static func latencyOverTime(_ s: RunSummary, _ colours: [String: String], _ value: KeyPath<RunSummary.Second, Double>, _ name: String) -> String {
        let values = s.endpoints.flatMap(\.seconds).map { $0[keyPath: value] }.filter { $0 > 0 }
        guard let lo = values.min(), let hi = values.max() else { return "<p>no data</p>" }
        let series = s.endpoints.map { e in
            SVGChart.Series(name: "\(e.name) \(name)", colour: colours[e.name] ?? "#111",
                            points: e.seconds.map { (Double($0.second), $0[keyPath: value]) }, gap: 1.5)
        }
        return SVGChart(x: timeAxis(s), y: .log("\(name) latency (ms, log scale)", from: lo, to: hi), series: series).render()
    }

    static func throughput(_ s: RunSummary, _ colours: [String: String]) -> String {
        let total = s.seconds.map { (x: Double($0.second), y: Double($0.requests)) }
        guard let top = total.map(\.y).max(), top > 0 else { return "<p>no data</p>" }
        // A second without requests of an endpoint is a 0 on its line, not a gap.
        let last = s.seconds.map(\.second).max() ?? 0
        let series = [SVGChart.Series(name: "all endpoints", colour: "#111", points: total, width: 2.4)] + s.endpoints.map { e in
            let counts = Dictionary(uniqueKeysWithValues: e.seconds.map { ($0.second, $0.requests) })
            return SVGChart.Series(name: e.name, colour: colours[e.name] ?? "#111",
                                   points: (0...last).map { (Double($0), Double(counts[$0] ?? 0)) })
        }
        return SVGChart(x: timeAxis(s), y: .linear("requests per second (req/s)", upTo: top), series: series).render()
    }

    /// Percentile against latency, both on log scales. An endpoint's line stops at the
    /// highest percentile its sample can tell apart from the maximum (n × (1 − p) ≥ 1).
    static func distribution(_ s: RunSummary, _ colours: [String: String]) -> String {
        let series = s.endpoints.map { e in
            SVGChart.Series(name: e.name, colour: colours[e.name] ?? "#111",
                            points: e.percentiles.filter { Double(e.requests) * (1 - $0[0] / 100) >= 1 - 1e-9 }.map { ($0[0], $0[1]) })
        }
        let values = series.flatMap(\.points).map(\.y).filter { $0 > 0 }
        guard let lo = values.min(), let hi = values.max() else { return "<p>no data</p>" }
        // Wide enough for the largest sample's deepest percentile, and at least to 99.99 %.
        let deepest = series.flatMap(\.points).map(\.x).max() ?? 0
        let nines = max(4, Int((-log10(1 - deepest / 100) - 1e-6).rounded(.up)))
        return SVGChart(x: .percentile("percentile (%), log scale of 1/(1−p)", nines: nines),
                        y: .log("latency (ms, log scale)", from: lo, to: hi), series: series).render()
    }
}
