import FollaCore
import Foundation
import Metrics

/// The in-process micro-cache in front of a read: for `period`, every request for the same
/// key shares one load.
///
/// The first request after expiry starts the load, every request arriving meanwhile awaits
/// that same task (single flight), and later ones get the stored result until it expires.
/// Failures are not kept. A thousand screens polling one venue cost one database read per
/// period; so do the phones of one dense hotspot asking for the groups around them.
actor MicroCache<Key: Hashable & Sendable, Value: Sendable> {
    private struct Entry {
        var expires: ContinuousClock.Instant
        var task: Task<Value, Error>
    }

    private var entries: [Key: Entry] = [:]
    private let period: Duration
    private let load: @Sendable (Key) async throws -> Value
    private let hits: Counter
    private let misses: Counter

    /// - Parameters:
    ///   - name: the cache's name in the metrics (`folla_cache_lookups_total{cache=…}`).
    ///   - period: how long one load serves every request for its key.
    ///   - load: reads the value for a key.
    init(name: String, period: Duration, load: @escaping @Sendable (Key) async throws -> Value) {
        self.period = period
        self.load = load
        hits = Counter(label: "folla_cache_lookups_total", dimensions: [("cache", name), ("result", "hit")])
        misses = Counter(label: "folla_cache_lookups_total", dimensions: [("cache", name), ("result", "miss")])
    }

    /// Forgets every stored value: the next request for any key loads afresh. A load
    /// already under way still answers the requests that joined it.
    func removeAll() {
        entries.removeAll()
    }

    func value(for key: Key) async throws -> Value {
        let now = ContinuousClock.now
        // A waiter that is cancelled (its request released by the database gate) stops
        // waiting at once; the shared load goes on for the others.
        if let entry = entries[key], entry.expires > now {
            hits.increment()
            return try await FirstResult.value(of: entry.task)
        }
        misses.increment()
        let load = self.load
        let task = Task { try await load(key) }
        entries[key] = Entry(expires: now.advanced(by: period), task: task)
        // Expired entries go once there are more than a thousand: what stays is bounded by the
        // keys asked for within one period.
        if entries.count > 1_000 { entries = entries.filter { $0.value.expires > now } }
        do {
            return try await FirstResult.value(of: task)
        } catch {
            // Failures are not kept (a waiter's own cancellation is not the load's failure).
            if !(error is CancellationError), entries[key]?.task == task { entries[key] = nil }
            throw error
        }
    }
}
