import Foundation

/// Published stats: thresholds and noise.
extension PrivacyPolicy {
    /// The breakdown of some published entries together (one place, a cluster, a wall):
    /// cells add nothing (otherwise a cluster minus its big members would be theirs).
    ///
    /// Shown only with at least `k` established reporters. Unless k = 1 the counts carry
    /// Laplace noise (scale `sexNoiseScale` on men and women, `ageNoiseScale` years on the
    /// sum of ages) drawn from a generator seeded by `noiseKey`, the XOR of the reporters'
    /// random tags and the place's ~100 m cell (`noiseMix`): the same people in the same cell
    /// always get the same answer, so repeating a read averages nothing out, while one
    /// arrival or departure changes the set and so redraws all the noise. The cell is in the
    /// seed so that the noise does not travel with a group: keyed to the reporters alone, a
    /// group that moved together read the same figures wherever it went, a fingerprint that
    /// linked its places (an outside probe, session 22, with no device of its own: three
    /// honest people 540 m apart). The price: a group that crosses n cells together gives n
    /// draws of its own figures (their mean is its truth to within 1/√n of the noise), never
    /// one person's. Subtracting the answers before and after a departure then
    /// gives the leaver's age plus the difference of two Laplace(25) draws (standard
    /// deviation about 50 years) and their sex with about 62 % confidence.
    ///
    /// Several entries together (clusters, walls) add up each place's own noisy figures
    /// rather than drawing fresh noise for the sum: otherwise every different subset of
    /// places (another cluster ε, another wall radius) would be a fresh draw over the same
    /// people, and enough subsets would average the noise away. Only places that show stats
    /// on their own (k reporters) contribute, so a sum never carries one person's figures.
    public func stats(of entries: [PublishedPlace]) -> PublishedStats? {
        stats(entries.compactMap { e in e.raw.map { ($0, e.mix) } })
    }

    /// How long a place's published breakdown stands (`SQL/0024`): its figures, and the
    /// reporters' mix behind their noise, are a snapshot taken once per period. Seeded by the
    /// live set of reporters, the noise was redrawn by anyone who moved a device in or out:
    /// an outside probe with a dozen devices averaged 200 draws in about a minute and read a
    /// leaver's age to ±3 years and their sex (session 23). Now averaging needs the same
    /// honest people together for many periods.
    public static let statsPeriod: TimeInterval = 900

    /// The index of the stats period holding `date`.
    public static func statsBucket(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / statsPeriod).rounded(.down))
    }

    /// The breakdown a place publishes and the mix that seeds its noise: live at k = 1 (the
    /// original, exact), the period's snapshot otherwise (nil before its first).
    func publishedBreakdown(of place: LivePlace) -> StatsSnapshot? {
        isOriginal ? StatsSnapshot(stats: place.stats, mix: place.mix) : place.snapshot
    }

    /// What seeds a published place's noise besides `noiseKey`: its reporters' mix and its cell.
    /// - Parameters:
    ///   - mix: the XOR of the reporters' random tags.
    ///   - cell: the centre of the place's ~100 m cell (`coarsen(anchor)`).
    static func noiseMix(_ mix: UInt64, cell: Coordinate) -> UInt64 {
        var cellRandom = SeededRandom(seed: cell.latitude.bitPattern ^ (cell.longitude.bitPattern &* 0x9E37_79B9_7F4A_7C15))
        return mix ^ cellRandom.next()
    }

    /// `stats(of:)` for one raw breakdown and its reporters' mix.
    public func stats(_ s: PlaceStats, mix: UInt64) -> PublishedStats? {
        stats([(s, mix)])
    }

    private func stats(_ parts: [(raw: PlaceStats, mix: UInt64)]) -> PublishedStats? {
        if isOriginal {
            let s = PlaceStats.sum(parts.map(\.raw)) ?? PlaceStats(people: 0, reporters: 0, ageSum: 0, male: 0, female: 0)
            return PublishedStats(reported: s.reporters, averageAge: s.averageAge.map { ($0 * 10).rounded() / 10 },
                                  male: s.male, female: s.female)
        }
        let shown = parts.filter { $0.raw.reporters >= k }
        guard !shown.isEmpty else { return nil }
        var male = 0, female = 0, reporters = 0, ageSum = 0.0
        for p in shown {
            // Each place's own noise, the same for the same reporters, always.
            var noise = SeededRandom(seed: noiseKey ^ p.mix)
            male += max(0, Int((Double(p.raw.male) + noise.laplace(scale: sexNoiseScale)).rounded()))
            female += max(0, Int((Double(p.raw.female) + noise.laplace(scale: sexNoiseScale)).rounded()))
            ageSum += Double(p.raw.ageSum) + noise.laplace(scale: ageNoiseScale)
            reporters += p.raw.reporters
        }
        return PublishedStats(reported: male + female, averageAge: min(120, max(13, (ageSum / Double(reporters)).rounded())),
                              male: male, female: female)
    }
}
