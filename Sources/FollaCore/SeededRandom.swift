import Foundation

/// SplitMix64 (Steele et al. 2014): tiny, fast, and the same sequence for the same seed on
/// every machine, so a simulator run can be replayed exactly and the stats noise is a pure
/// function of its seed (which no system generator offers).
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Standard normal (Box–Muller).
    public mutating func normal() -> Double {
        let u = max(unit(), 1e-12), v = unit()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }

    /// Exponential with the given mean.
    public mutating func exponential(mean: Double) -> Double { -log(max(1 - unit(), 1e-12)) * mean }

    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// Laplace(0, scale), by the inverse of its distribution function.
    public mutating func laplace(scale: Double) -> Double {
        let u = unit() - 0.5
        return -scale * (u < 0 ? -1 : 1) * log(max(1 - 2 * abs(u), .leastNormalMagnitude))
    }
}
