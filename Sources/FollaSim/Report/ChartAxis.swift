import Foundation

/// How values map onto one side of a chart, and which of them get a labelled tick.
///
/// Latency spans orders of magnitude (a 2 ms median beside a 3 s tail), so latency axes are
/// logarithmic: on a linear one every line but the worst lies flat on zero.
struct ChartAxis {
    enum Scale: Equatable {
        case linear
        case log10
        /// A percentile p (0 ≤ p < 100) sits at log10(1 / (1 − p/100)), as in an HdrHistogram
        /// percentile plot: 0 → 90 %, 90 → 99 %, 99 → 99.9 % each get the same room, so
        /// the tail, where the trouble is, is as wide as the body.
        case percentile
    }

    struct Tick {
        var value: Double
        var label: String
    }

    /// The axis title, with its unit: "time since start (s)".
    var title: String
    var scale: Scale
    var lower: Double
    var upper: Double
    var ticks: [Tick]

    func transformed(_ v: Double) -> Double {
        switch scale {
        case .linear: v
        case .log10: Foundation.log10(v)
        case .percentile: -Foundation.log10(1 - v / 100)
        }
    }

    /// Where `v` lies between the ends of the axis, 0 to 1.
    func fraction(_ v: Double) -> Double {
        (transformed(v) - transformed(lower)) / (transformed(upper) - transformed(lower))
    }

    func contains(_ v: Double) -> Bool {
        guard v.isFinite, scale != .log10 || v > 0, scale != .percentile || v < 100 else { return false }
        let f = fraction(v)
        return f >= -1e-9 && f <= 1 + 1e-9
    }

    /// From 0 to a round number at or above `maxValue`, ticks at steps of 1, 2 or 5 × 10ⁿ.
    static func linear(_ title: String, upTo maxValue: Double) -> ChartAxis {
        let top = maxValue > 0 && maxValue.isFinite ? maxValue : 1
        let step = niceStep(top / 5)
        let upper = (top / step).rounded(.up) * step
        let ticks = stride(from: 0.0, through: upper + step / 2, by: step).map { Tick(value: $0, label: label($0)) }
        return ChartAxis(title: title, scale: .linear, lower: 0, upper: upper, ticks: ticks)
    }

    /// Up to three decades: from the 1, 2 or 5 × 10ⁿ at or below `minValue` to the one at or
    /// above `maxValue`, each of them a tick. Wider: whole decades, ticked.
    static func log(_ title: String, from minValue: Double, to maxValue: Double) -> ChartAxis {
        let lo = max(minValue, 1e-3), hi = max(maxValue, lo)
        let first = Int(Foundation.log10(lo).rounded(.down))
        var last = Int(Foundation.log10(hi).rounded(.up))
        if last <= first { last = first + 1 }
        let wide = last - first > 3
        let steps = (first...last).flatMap { d in (wide ? [1.0] : [1, 2, 5]).map { $0 * pow(10, Double(d)) } }
        let lower = steps.last { $0 <= lo * (1 + 1e-9) } ?? steps[0]
        let upper = steps.first { $0 >= hi * (1 - 1e-9) && $0 > lower } ?? steps[steps.count - 1]
        let ticks = steps.filter { $0 >= lower && $0 <= upper }.map { Tick(value: $0, label: label($0)) }
        return ChartAxis(title: title, scale: .log10, lower: lower, upper: upper, ticks: ticks)
    }

    /// From 0 % to 100 × (1 − 10⁻ⁿ) % (n nines), ticks at 0, 50, 90, 99, 99.9 … %.
    static func percentile(_ title: String, nines: Int) -> ChartAxis {
        let n = max(1, nines)
        let upper = 100 * (1 - pow(10, -Double(n)))
        let values = [0.0, 50] + (1...n).map { 100 * (1 - pow(10, -Double($0))) }
        return ChartAxis(title: title, scale: .percentile, lower: 0, upper: upper,
                         ticks: values.map { Tick(value: $0, label: String(format: "%.*f", max(0, Self.nines(in: $0) - 2), $0) + "%") })
    }

    /// The number of nines in a percentile's fraction (99.9 % → 3), to print it without noise.
    private static func nines(in percentile: Double) -> Int {
        percentile < 90 ? 0 : Int((-Foundation.log10(1 - percentile / 100)).rounded())
    }

    /// 1, 2 or 5 × 10ⁿ, the smallest at or above `raw`.
    static func niceStep(_ raw: Double) -> Double {
        let magnitude = pow(10, Foundation.log10(raw).rounded(.down))
        for m in [1.0, 2, 5, 10] where m * magnitude >= raw * (1 - 1e-9) { return m * magnitude }
        return 10 * magnitude
    }

    /// Plain numbers: "0.05", "2", "1500" (no exponents, no trailing zeros).
    static func label(_ v: Double) -> String {
        if v >= 1 || v == 0 { return v == v.rounded() ? String(format: "%.0f", v) : String(format: "%g", v) }
        return String(format: "%g", v)
    }
}
