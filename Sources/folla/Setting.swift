import ArgumentParser
import Foundation

/// One setting of `folla serve`: its flag, else its `FOLLA_*` environment variable, else
/// its default; checked before anything happens (no initdb, no PostgreSQL, no port), so a
/// value that does not parse or is out of range is a usage error (exit 64) that names the
/// flag or variable it came from, never a silent default.
struct Setting {
    let flag: String
    let variable: String

    init(_ flag: String) {
        self.flag = flag
        variable = "FOLLA_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// A number in `range` (finite).
    func number(_ value: Double?, default fallback: Double, in range: ClosedRange<Double>) throws -> Double {
        let (raw, source) = try pick(value.map { "\($0)" }, fallback: "\(fallback)")
        guard let v = Double(raw), v.isFinite, range.contains(v) else {
            throw ValidationError("\(source) must be a number from \(Self.text(range.lowerBound)) to \(Self.text(range.upperBound)) (got \"\(raw)\")")
        }
        return v
    }

    /// A whole number in `range`.
    func integer(_ value: Int?, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
        let (raw, source) = try pick(value.map { "\($0)" }, fallback: "\(fallback)")
        guard let v = Int(raw), range.contains(v) else {
            throw ValidationError("\(source) must be a whole number from \(range.lowerBound) to \(range.upperBound) (got \"\(raw)\")")
        }
        return v
    }

    /// A value `parse` accepts (its error is the message, after the flag's or variable's name).
    func parsed<T>(_ value: String?, default fallback: String, _ parse: (String) throws -> T) throws -> T {
        let (raw, source) = try pick(value, fallback: fallback)
        do { return try parse(raw) } catch { throw ValidationError("\(source): \(error)") }
    }

    /// The flag's text, else the variable's, else the default, with where it came from.
    private func pick(_ value: String?, fallback: String) throws -> (String, String) {
        if let value { return (value, "--\(flag)") }
        if let e = env(variable) { return (e.trimmingCharacters(in: .whitespaces), variable) }
        return (fallback, "the default of --\(flag)")
    }

    private static func text(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? "\(Int(d))" : "\(d)"
    }
}
