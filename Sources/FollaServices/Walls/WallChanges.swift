import Synchronization

/// Rung whenever messages may have changed anywhere (a NOTIFY from any instance, via
/// `MessageFeed`): the wall streams wake at once instead of at their next tick, so a message
/// posted through another instance reaches a screen in milliseconds rather than a tick plus
/// a cache period.
public final class WallChanges: Sendable {
    private struct State {
        var rings: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// How many times it has rung: a stream remembers it and waits for the next.
    public var rings: UInt64 { state.withLock { $0.rings } }

    /// Wakes every waiter.
    public func ring() {
        let woken = state.withLock { s in
            s.rings &+= 1
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        woken.forEach { $0.resume() }
    }

    /// Returns once it has rung more than `seen` times, or after `timeout`, or when the task is cancelled.
    public func wait(after seen: UInt64, upTo timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.rung(after: seen) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func rung(after seen: UInt64) async {
        let id = state.withLock { s in defer { s.nextWaiter += 1 }; return s.nextWaiter }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    guard s.rings == seen, !Task.isCancelled else { return true }
                    s.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
