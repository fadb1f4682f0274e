import Foundation

/// Published stats: thresholds and noise.
extension PrivacyPolicy {
    /// The breakdown of some published entries together (one place, a cluster, a wall):
    /// cells add nothing (otherwise a cluster minus its big members would be theirs).
    ///
    /// Shown only with at least `k` established reporters. Unless k = 1 the counts carry
    /// Laplace noise (scale `sexNoiseScale` on men and women, `ageNoiseScale` years on the
    /// sum of ages) drawn from a generator seeded by `noiseKey` and the XOR of the
    /// reporters' random tags: the same people always get the same answer, so repeating a
    /// read averages nothing out, while one arrival or departure changes the set and so
    /// redraws all the noise. Subtracting the answers before and after a departure then
    /// gives the leaver's age plus the difference of two Laplace(25) draws (standard
    /// deviation about 50 years) and their sex with about 62 % confidence.
    ///
    /// Several entries together (clusters, walls) add up each place's own noisy figures
    /// rather than drawing fresh noise for the sum: otherwise every different subset of
    /// places (another cluster ε, another wall radius) would be a fresh draw over the same
    /// people, and enough subsets would average the noise away. Only places that show stats
    /// on their own (k reporters) contribute, so a sum never carries one person's figures.
    public func stats(of entries: [PublishedPlace]) -> PublishedStats? {
        var parts: [(raw: PlaceStats, mix: UInt64)] = []
        for e in entries {
            guard let s = e.raw, isOriginal || s.reporters >= k else { continue }
            parts.append((s, e.mix))
        }
        if isOriginal || parts.count <= 1 {
            let sum = PlaceStats.sum(parts.map(\.raw)) ?? PlaceStats(people: 0, reporters: 0, ageSum: 0, male: 0, female: 0)
            return stats(sum, mix: parts.first?.mix ?? 0)
        }
        var male = 0, female = 0, reporters = 0, ageSum = 0.0
        for p in parts {
            let n = noisy(p.raw, mix: p.mix)
            male += n.male
            female += n.female
            ageSum += n.ageSum
            reporters += p.raw.reporters
        }
        return PublishedStats(reported: male + female, averageAge: min(120, max(13, (ageSum / Double(reporters)).rounded())),
                              male: male, female: female)
    }

    /// One place's figures with its own noise (the same for the same reporters, always).
    func noisy(_ s: PlaceStats, mix: UInt64) -> (male: Int, female: Int, ageSum: Double) {
        var noise = StatsNoise(seed: noiseKey ^ mix)
        let male = max(0, Int((Double(s.male) + noise.laplace(scale: sexNoiseScale)).rounded()))
        let female = max(0, Int((Double(s.female) + noise.laplace(scale: sexNoiseScale)).rounded()))
        return (male, female, Double(s.ageSum) + noise.laplace(scale: ageNoiseScale))
    }

    /// `stats(of:)` for one raw breakdown and its contributors' mix.
    public func stats(_ s: PlaceStats, mix: UInt64) -> PublishedStats? {
        if isOriginal {
            return PublishedStats(reported: s.reporters, averageAge: s.averageAge.map { ($0 * 10).rounded() / 10 },
                                  male: s.male, female: s.female)
        }
        guard s.reporters >= k else { return nil }
        let n = noisy(s, mix: mix)
        let age = min(120, max(13, (n.ageSum / Double(s.reporters)).rounded()))
        return PublishedStats(reported: n.male + n.female, averageAge: age, male: n.male, female: n.female)
    }
}

/// A deterministic generator for stats noise (SplitMix64, Steele et al. 2014): the noise
/// must be a pure function of its seed, which no system generator offers; a few lines of
/// well-known code are cheaper than a dependency.
struct StatsNoise {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in (0, 1).
    mutating func unit() -> Double { (Double(next() >> 11) + 0.5) / 9_007_199_254_740_992 }

    /// Laplace(0, scale) by the inverse of its distribution function.
    mutating func laplace(scale: Double) -> Double {
        let u = unit() - 0.5
        return -scale * (u < 0 ? -1 : 1) * log(1 - 2 * abs(u))
    }
}
