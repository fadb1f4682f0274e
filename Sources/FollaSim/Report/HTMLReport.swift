import Foundation

/// A self-contained HTML page with inline SVG charts: latency percentiles over time,
/// throughput over time, the latency distribution, and a map-like plot of the groups.
public enum HTMLReport {
    public static func render(_ s: RunSummary) -> String {
        let rps = s.seconds.map { (Double($0.second), Double($0.requests)) }
        let p99 = s.seconds.map { (Double($0.second), $0.p99Ms) }
        let p50 = s.seconds.map { (Double($0.second), $0.p50Ms) }
        var html = """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><title>Folla simulator — \(esc(s.scenario))</title>
        <style>body{font-family:system-ui,sans-serif;margin:2em;color:#111}svg{background:#fafafa;border:1px solid #ddd}
        table{border-collapse:collapse}td,th{padding:.2em .8em;border-bottom:1px solid #eee;text-align:right}th:first-child,td:first-child{text-align:left}
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
        html += "<h2>Latency over time (ms; p50 blue, p99 red)</h2>" + lineChart([(p50, "#2563eb"), (p99, "#dc2626")])
        html += "<h2>Throughput over time (requests per second, by due time)</h2>" + lineChart([(rps, "#059669")])
        html += "<h2>Latency distribution (ms at percentile)</h2>" + barChart(s.latencyPercentiles.map { (String(format: "p%g", $0[0]), $0[1]) })
        if !s.groupsSample.isEmpty {
            html += "<h2>Where the groups were (circle area ∝ people)</h2>" + mapPlot(s.groupsSample)
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

    static func lineChart(_ series: [([(Double, Double)], String)], width: Double = 800, height: Double = 220) -> String {
        let all = series.flatMap(\.0)
        guard let maxX = all.map(\.0).max(), let maxY = all.map(\.1).max(), maxX > 0, maxY > 0 else { return "<p>no data</p>" }
        var svg = "<svg width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\">"
        svg += "<text x=\"4\" y=\"14\" font-size=\"12\">\(String(format: "%.1f", maxY))</text><text x=\"4\" y=\"\(Int(height) - 4)\" font-size=\"12\">0</text>"
        svg += "<text x=\"\(Int(width) - 60)\" y=\"\(Int(height) - 4)\" font-size=\"12\">\(Int(maxX)) s</text>"
        for (points, colour) in series {
            let path = points.map { String(format: "%.1f,%.1f", 40 + $0.0 / maxX * (width - 50), height - 20 - $0.1 / maxY * (height - 40)) }
            svg += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.5\" points=\"\(path.joined(separator: " "))\"/>"
        }
        return svg + "</svg>"
    }

    static func barChart(_ bars: [(String, Double)], width: Double = 800, height: Double = 220) -> String {
        guard let maxY = bars.map(\.1).max(), maxY > 0 else { return "<p>no data</p>" }
        let w = (width - 40) / Double(bars.count)
        var svg = "<svg width=\"\(Int(width))\" height=\"\(Int(height))\">"
        for (i, (label, v)) in bars.enumerated() {
            let h = v / maxY * (height - 50)
            svg += String(format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#6366f1\"/>", 30 + Double(i) * w, height - 30 - h, w * 0.7, h)
            svg += String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%@ %.1f</text>", 30 + Double(i) * w, height - 12, label, v)
        }
        return svg + "</svg>"
    }

    /// Points are [lat, lon, people].
    static func mapPlot(_ points: [[Double]], size: Double = 600) -> String {
        guard let minLat = points.map({ $0[0] }).min(), let maxLat = points.map({ $0[0] }).max(),
              let minLon = points.map({ $0[1] }).min(), let maxLon = points.map({ $0[1] }).max() else { return "" }
        let spanLat = max(maxLat - minLat, 1e-6), spanLon = max(maxLon - minLon, 1e-6)
        var svg = "<svg width=\"\(Int(size))\" height=\"\(Int(size))\">"
        for p in points {
            let x = 20 + (p[1] - minLon) / spanLon * (size - 40)
            let y = size - 20 - (p[0] - minLat) / spanLat * (size - 40)
            svg += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"#f97316\" fill-opacity=\"0.5\"/>", x, y, 2 + p[2].squareRoot() * 1.5)
        }
        return svg + "</svg>"
    }
}
