import FollaCore
import FollaStore

/// The map's city-wide read model, kept fresh in the background: readers get the current
/// snapshot at once, and one rebuild starts when it is older than `period` (stale while
/// revalidating). A rebuild over 100 000 places takes a fraction of a second; readers never
/// wait for it, except the first one and every one at period zero (tests, where answers must
/// reflect the last write).
///
/// Staleness bound: `period` plus one rebuild.
actor MapReadModel {
    private let period: Duration
    private let build: @Sendable () async throws -> MapSnapshot
    private var current: (snapshot: MapSnapshot, at: ContinuousClock.Instant)?
    private var rebuilding: Task<MapSnapshot, Error>?

    /// - Parameters:
    ///   - period: how old a snapshot may get before a rebuild starts.
    ///   - build: reads the live places and builds a snapshot.
    init(period: Duration, build: @escaping @Sendable () async throws -> MapSnapshot) {
        self.period = period
        self.build = build
    }

    func snapshot() async throws -> MapSnapshot {
        let now = ContinuousClock.now
        if let current, period > .zero {
            if now - current.at > period && rebuilding == nil { _ = rebuild() }
            return current.snapshot
        }
        return try await FirstResult.value(of: rebuilding ?? rebuild())
    }

    /// One rebuild at a time; its result becomes current when it is done.
    private func rebuild() -> Task<MapSnapshot, Error> {
        let started = ContinuousClock.now
        let task = Task { [build] in try await build() }
        rebuilding = task
        Task {
            let result = try? await task.value
            self.finish(result, started: started)
        }
        return task
    }

    private func finish(_ snapshot: MapSnapshot?, started: ContinuousClock.Instant) {
        if let snapshot { current = (snapshot, started) }
        rebuilding = nil
    }
}
