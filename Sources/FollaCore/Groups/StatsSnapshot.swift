/// A place's breakdown as taken at the start of a stats period (`SQL/0024`), and its
/// reporters' mix then: what a place publishes unless k = 1, so that moving devices in and
/// out of it draws no fresh noise within the period (`PrivacyPolicy.statsPeriod`).
public struct StatsSnapshot: Sendable, Equatable {
    /// `people` is the place's live count; the rest as of the snapshot.
    public var stats: PlaceStats
    /// The XOR of the snapshot's reporters' random tags: seeds the noise.
    public var mix: UInt64

    /// - Parameters:
    ///   - stats: the breakdown (with the live people count).
    ///   - mix: its reporters' mix.
    public init(stats: PlaceStats, mix: UInt64) {
        self.stats = stats
        self.mix = mix
    }
}
