import Foundation

/// A line chart as inline SVG, with what a reader needs to trust it: both axes with
/// labelled ticks and units, and a legend naming each line.
///
/// Elements carry classes (`tick-x`, `tick-y`, `series`) and `data-` attributes so that tests
/// can find ticks and lines without a browser.
struct SVGChart {
    struct Series {
        var name: String
        var colour: String
        var points: [(x: Double, y: Double)]
        var dashed = false
        /// Points further apart in x than this are not joined: a second without requests
        /// has no latency, and a line across it would invent one. nil: always joined.
        var gap: Double?
        var width = 1.6
    }

    var x: ChartAxis
    var y: ChartAxis
    var series: [Series]
    var width = 900.0
    var height = 300.0

    /// The plot area, in pixels: room on the left for the y ticks and title, below for the
    /// x ticks and title, on the right for the legend.
    var plotLeft: Double { 72 }
    var plotRight: Double { width - 210 }
    var plotTop: Double { 14 }
    var plotBottom: Double { height - 46 }

    func px(_ v: Double) -> Double { plotLeft + x.fraction(v) * (plotRight - plotLeft) }
    func py(_ v: Double) -> Double { plotBottom - y.fraction(v) * (plotBottom - plotTop) }

    /// Colours that stay apart from one another (and for the colour-blind, mostly) on white.
    static let palette = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563"]

    func render() -> String {
        var svg = "<svg class=\"chart\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-size=\"12\">"
        svg += SVG.rect(plotLeft, plotTop, plotRight - plotLeft, plotBottom - plotTop, "fill=\"#fff\" stroke=\"#bbb\"")
        for t in x.ticks {
            let p = px(t.value)
            svg += SVG.line(p, plotTop, p, plotBottom, "stroke=\"#eee\"") + SVG.line(p, plotBottom, p, plotBottom + 5, "stroke=\"#555\"")
            svg += SVG.text(p, plotBottom + 18, t.label, "class=\"tick-x\" text-anchor=\"middle\" data-value=\"\(t.value)\"")
        }
        for t in y.ticks {
            let p = py(t.value)
            svg += SVG.line(plotLeft, p, plotRight, p, "stroke=\"#eee\"") + SVG.line(plotLeft - 5, p, plotLeft, p, "stroke=\"#555\"")
            svg += SVG.text(plotLeft - 8, p + 4, t.label, "class=\"tick-y\" text-anchor=\"end\" data-value=\"\(t.value)\"")
        }
        svg += SVG.text((plotLeft + plotRight) / 2, height - 8, x.title, "class=\"axis-title\" text-anchor=\"middle\"")
        let yMid = (plotTop + plotBottom) / 2
        svg += SVG.text(16, yMid, y.title, "class=\"axis-title\" text-anchor=\"middle\" transform=\"rotate(-90 16 \(SVG.num(yMid)))\"")
        for s in series {
            let (d, dots) = path(s)
            svg += "<path class=\"series\" data-series=\"\(HTMLReport.esc(s.name))\" fill=\"none\" stroke=\"\(s.colour)\" stroke-width=\"\(s.width)\""
                + " stroke-linejoin=\"round\"" + (s.dashed ? " stroke-dasharray=\"5 3\"" : "") + " d=\"\(d)\"/>"
            for (dx, dy) in dots {
                svg += SVG.circle(dx, dy, 2.4, "class=\"dot\" data-series=\"\(HTMLReport.esc(s.name))\" fill=\"\(s.colour)\"")
            }
        }
        svg += legend(series.map { ($0.name, $0.colour, $0.dashed) })
        return svg + "</svg>"
    }

    /// The series as path data, a new subpath after each gap, and the points that stand
    /// alone between gaps (drawn as dots: a path of one point shows nothing).
    func path(_ s: Series) -> (d: String, dots: [(Double, Double)]) {
        var runs: [[(Double, Double)]] = [], previous: Double?
        for p in s.points where x.contains(p.x) && y.contains(p.y) {
            if previous == nil || s.gap.map({ p.x - previous! > $0 }) == true { runs.append([]) }
            runs[runs.count - 1].append((px(p.x), py(p.y)))
            previous = p.x
        }
        let d = runs.filter { $0.count > 1 }.map { run in
            run.enumerated().map { ($0.offset == 0 ? "M" : "L") + SVG.num($0.element.0) + "," + SVG.num($0.element.1) }.joined(separator: " ")
        }.joined(separator: " ")
        return (d, runs.filter { $0.count == 1 }.map { $0[0] })
    }

    /// One row per series beside the plot.
    private func legend(_ rows: [(String, String, Bool)]) -> String {
        var g = "<g class=\"legend\">"
        for (i, (name, colour, dashed)) in rows.enumerated() {
            let y = plotTop + 10 + Double(i) * 20
            g += SVG.line(plotRight + 16, y, plotRight + 44, y, "stroke=\"\(colour)\" stroke-width=\"2.5\"" + (dashed ? " stroke-dasharray=\"5 3\"" : ""))
            g += SVG.text(plotRight + 50, y + 4, name)
        }
        return g + "</g>"
    }
}
