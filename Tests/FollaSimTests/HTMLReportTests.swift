import FollaGeo
@testable import FollaSim
import Foundation
import Testing

/// The simulator's HTML report, rendered from a hand-made run and read back as SVG: axes
/// with ticks and units, one line per endpoint, the percentile axis spaced as
/// log(1/(1−p)), and a map whose hotspot names sit at their positions and whose scale bar
/// is as long as it says.
@Suite struct HTMLReportTests {
    static let scenario = """
        {"name":"Report test","phones":100,"duration_s":20,"seed":7,"hotspots":[
          {"name":"Piazza Maggiore","lat":44.49381,"lon":11.34305,"weight":2,"spread_m":30},
          {"name":"Caffè & Co","lat":44.49588,"lon":11.35032,"weight":1,"spread_m":20}]}
        """

    /// 20 s of three endpoints with known latencies; checkins get slower as the run goes on.
    static func summary() throws -> RunSummary {
        let scenario = try ScenarioLoader.parse(Data(Self.scenario.utf8))
        let book = LatencyBook()
        for second in 0..<20 {
            for i in 0..<50 {
                book.record(endpoint: "checkin", micros: UInt64(2_000 + second * 500 + i * 40), status: 200, error: nil, second: second, expected: true)
            }
            for i in 0..<10 {
                book.record(endpoint: "groups", micros: UInt64(8_000 + i * 900), status: 200, error: nil, second: second, expected: true)
            }
            if second % 2 == 0 {
                book.record(endpoint: "wall", micros: 400, status: 304, error: nil, second: second, expected: true)
            }
        }
        var s = RunSummary(scenario: scenario, elapsed: 20, book: book.snapshot(), intended: 1210)
        s.groupsSample = [[44.49381, 11.34305, 40], [44.4940, 11.3433, 12], [44.49588, 11.35032, 25]]
        return s
    }

    static func html() throws -> String { HTMLReport.render(try summary()) }

    /// The `<svg>…</svg>` that follows a heading.
    func svg(after heading: String, in html: String) throws -> String {
        let start = try #require(html.range(of: heading), "no heading \(heading)").upperBound
        let open = try #require(html.range(of: "<svg", range: start..<html.endIndex))
        let close = try #require(html.range(of: "</svg>", range: open.upperBound..<html.endIndex))
        return String(html[open.lowerBound..<close.upperBound])
    }

    /// Every element `<tag …>` whose attributes contain `marker`, with its text content.
    func elements(_ tag: String, _ marker: String, in svg: String) -> [(attrs: String, text: String)] {
        let regex = try! Regex("<\(tag) ([^>]*)>([^<]*)")
        return svg.matches(of: regex).compactMap { m in
            let attrs = String(m.output[1].substring ?? ""), text = String(m.output[2].substring ?? "")
            return attrs.contains(marker) ? (attrs, text) : nil
        }
    }

    func attr(_ name: String, _ attrs: String) -> Double? {
        guard let m = attrs.firstMatch(of: try! Regex("(?:^|\\s)\(name)=\"([^\"]*)\"")) else { return nil }
        return Double(String(m.output[1].substring ?? ""))
    }

    /// The vertices of a series' path (`M x,y L x,y …`).
    func points(_ attrs: String) -> [(x: Double, y: Double)] {
        guard let d = attrs.firstMatch(of: /d="([^"]*)"/)?.output.1 else { return [] }
        return d.matches(of: /[ML]([0-9.]+),([0-9.]+)/).map { (Double(String($0.output.1))!, Double(String($0.output.2))!) }
    }

    @Test func chartsHaveTickedAxesWithUnitsAndALegend() throws {
        let html = try Self.html()
        let p99 = try svg(after: "p99 latency over time", in: html)
        #expect(elements("text", "class=\"tick-x\"", in: p99).map(\.text) == ["0", "5", "10", "15", "20"])
        // checkin p99 goes ~4–14 ms, groups ~16 ms, wall 0.4 ms: from 0.2 to 20 ms in 1-2-5 steps.
        let yTicks = elements("text", "class=\"tick-y\"", in: p99).map(\.text)
        #expect(yTicks == ["0.2", "0.5", "1", "2", "5", "10", "20"], "\(yTicks)")
        let titles = elements("text", "axis-title", in: p99).map(\.text)
        #expect(titles.contains("time since start (s)") && titles.contains { $0.contains("(ms") }, "\(titles)")
        let throughput = try svg(after: "Throughput over time", in: html)
        #expect(elements("text", "axis-title", in: throughput).map(\.text).contains("requests per second (req/s)"))
        // 61 requests in the busiest second: a round top of 80 with ticks every 20.
        #expect(elements("text", "class=\"tick-y\"", in: throughput).map(\.text) == ["0", "20", "40", "60", "80"])
        let legend = try #require(p99.range(of: "<g class=\"legend\">")).upperBound
        let names = p99[legend...].matches(of: /<text [^>]*>([^<]*)<\/text>/).map { String($0.output.1) }
        #expect(names == ["checkin p99", "groups p99", "wall p99"])
    }

    @Test func oneLinePerEndpointWithItsOwnNumbers() throws {
        let s = try Self.summary()
        let html = HTMLReport.render(s)
        for heading in ["p99 latency over time", "p50 latency over time", "Latency distribution"] {
            let lines = elements("path", "class=\"series\"", in: try svg(after: heading, in: html))
            #expect(lines.count == 3, "\(heading)")
        }
        let p99 = elements("path", "class=\"series\"", in: try svg(after: "p99 latency over time", in: html))
        // Every second of checkins and groups, every other second of wall: as dots, since
        // the seconds between have no latency to draw.
        #expect(p99.map { points($0.attrs).count } == [20, 20, 0])
        let p99Chart = try svg(after: "p99 latency over time", in: html)
        #expect(elements("circle", "data-series=\"wall p99\"", in: p99Chart).count == 10)
        #expect(elements("circle", "class=\"dot\"", in: p99Chart).count == 10)
        // The checkin line climbs (its latency grows each second); the groups line is flat.
        let ys = { (i: Int) in i < p99.count ? points(p99[i].attrs).map(\.y) : [] }
        #expect((ys(0).first ?? 0) > (ys(0).last ?? 0) + 20, "\(ys(0))")
        #expect(Set(ys(1)).count == 1)
        let checkin = try #require(s.endpoints.first { $0.name == "checkin" })
        #expect(checkin.seconds.count == 20 && abs(checkin.seconds[19].p99Ms - 13.46) < 0.2, "\(checkin.seconds.last as Any)")
        let throughput = elements("path", "class=\"series\"", in: try svg(after: "Throughput over time", in: html))
        #expect(throughput.map { $0.attrs.firstMatch(of: /data-series="([^"]*)"/).map { String($0.output.1) } ?? "" }
            == ["all endpoints", "checkin", "groups", "wall"])
        // Requests per second: a second without wall requests is a 0, so 20 points joined.
        let wall = throughput.last?.attrs ?? ""
        #expect(points(wall).count == 20 && wall.matches(of: /M/).count == 1)
    }

    @Test func percentileAxisIsSpacedAsLogOfOneOverOneMinusP() throws {
        let html = try Self.html()
        let chart = try svg(after: "Latency distribution", in: html)
        let ticks = Dictionary(elements("text", "class=\"tick-x\"", in: chart).map { ($0.text, attr("x", $0.attrs) ?? .nan) },
                               uniquingKeysWith: { first, _ in first })
        #expect(Set(ticks.keys) == ["0%", "50%", "90%", "99%", "99.9%", "99.99%"], "\(ticks)")
        let zero = try #require(ticks["0%"]), decade = try #require(ticks["90%"]) - zero
        #expect(decade > 50)
        // Each further nine one more decade along, and 50 % at log10(2) of a decade.
        for (label, decades) in [("50%", log10(2.0)), ("99%", 2), ("99.9%", 3), ("99.99%", 4)] {
            #expect(abs(try #require(ticks[label]) - (zero + decades * decade)) < 0.15, "\(label) at \(ticks[label] ?? .nan)")
        }
        // The groups line (200 requests) ends at p99.5, where 1 of its 200 remains above.
        let groups = try #require(elements("path", "data-series=\"groups\"", in: chart).first)
        let lastX = try #require(points(groups.attrs).last).x
        #expect(abs(lastX - (zero + log10(200.0) * decade)) < 0.15, "\(lastX)")
    }

    @Test func mapNamesHotspotsWhereTheyAreAndItsScaleBarIsTrue() throws {
        let html = try Self.html()
        let map = try svg(after: "Where the groups were", in: html)
        let header = try #require(map.firstMatch(of: /<svg ([^>]*)>/)).output.1
        let west = try #require(attr("data-west", String(header))), east = try #require(attr("data-east", String(header)))
        let south = try #require(attr("data-south", String(header))), north = try #require(attr("data-north", String(header)))
        let plotX = try #require(attr("data-plot-x", String(header))), width = try #require(attr("data-plot-width", String(header)))
        let height = try #require(attr("data-plot-height", String(header)))
        // The names, escaped, each beside its own position.
        let names = elements("text", "class=\"hotspot\"", in: map)
        #expect(names.map(\.text) == ["Piazza Maggiore", "Caffè &amp; Co"])
        for (name, lon) in zip(names, [11.34305, 11.35032]) {
            #expect(abs((attr("x", name.attrs) ?? .nan) - 7 - (plotX + (lon - west) / (east - west) * width)) < 0.15)
        }
        // Metres measured geodesically across the map, independent of the report's own formula.
        let mid = (south + north) / 2
        let acrossM = Geodesic.wgs84.distance(from: Coordinate(latitude: mid, longitude: west), to: Coordinate(latitude: mid, longitude: east))
        let upM = Geodesic.wgs84.distance(from: Coordinate(latitude: south, longitude: west), to: Coordinate(latitude: north, longitude: west))
        // North up and true to scale: a metre as long east–west as north–south.
        #expect(abs((acrossM / width) / (upM / height) - 1) < 0.002, "\(acrossM / width) vs \(upM / height) m/px")
        let barStart = try #require(map.range(of: "<g class=\"scale-bar\""))
        let bar = String(map[barStart.lowerBound...].prefix(600))
        let label = try #require(bar.firstMatch(of: /<text [^>]*>([0-9.]+) (m|km)<\/text>/))
        let metres = Double(String(label.output.1))! * (label.output.2 == "km" ? 1000 : 1)
        let rect = try #require(bar.firstMatch(of: /<rect ([^>]*)\/>/))
        let length = try #require(attr("width", String(rect.output.1)))
        #expect(abs(length - metres / (acrossM / width)) < 0.5, "\(metres) m drawn \(length) px; \(acrossM / width) m/px")
        #expect(length > width / 8 && length < width / 2)
        #expect(map.contains(">N</text>"))
    }
}
