import FollaStore
import Foundation

/// The in-process micro-cache in front of wall reads.
///
/// A thousand screens polling one venue share one database read per period: the first
/// poll after expiry starts the read, every poll arriving meanwhile awaits that same task
/// (single flight), and later polls get the stored result until it expires.
actor WallCache {
    private struct Entry {
        var expires: ContinuousClock.Instant
        var task: Task<WallData?, Error>
    }

    private var entries: [WallReads.Area: Entry] = [:]
    private let period: Duration
    private let load: @Sendable (WallReads.Area) async throws -> WallData?

    init(period: Duration, load: @escaping @Sendable (WallReads.Area) async throws -> WallData?) {
        self.period = period
        self.load = load
    }

    func data(for area: WallReads.Area) async throws -> WallData? {
        let now = ContinuousClock.now
        if let entry = entries[area], entry.expires > now {
            return try await entry.task.value
        }
        let load = self.load
        let task = Task { try await load(area) }
        entries[area] = Entry(expires: now.advanced(by: period), task: task)
        if entries.count > 10_000 { entries = entries.filter { $0.value.expires > now } }
        do {
            return try await task.value
        } catch {
            entries[area] = nil  // do not cache failures
            throw error
        }
    }
}
