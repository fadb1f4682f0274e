import Synchronization

/// Which of a request's possible ends comes first, for ``DatabaseMonitor/whileAvailable(deadline:_:)``:
/// its body done, its deadline passed, or the database marked unavailable.
///
/// Why not a child task for the outage: every stored request's body ran in a task group beside a
/// second child that waited for the next outage. That child was made, parked on the
/// monitor's list, cancelled and drained for every request: ~3 % of a dense groups answer's
/// server CPU, measured side by side. Now the caller waits on one continuation that the
/// body's end, the deadline or the monitor resumes, whichever comes first; the body still
/// runs in a child task, so that the outage can cancel it.
final class OutageRace: Sendable {
    enum End: Sendable, Equatable {
        case finished, late, outage
    }

    private struct State {
        var end: End?
        var waiting: CheckedContinuation<End, Never>?
    }

    private let state = Mutex(State())

    /// Records `end` if it is the first, and wakes the caller waiting in ``first()``; any
    /// later end changes nothing.
    func finish(_ end: End) {
        let waiting = state.withLock { s -> CheckedContinuation<End, Never>? in
            guard s.end == nil else { return nil }
            s.end = end
            defer { s.waiting = nil }
            return s.waiting
        }
        waiting?.resume(returning: end)
    }

    /// The first end, once there is one. One caller may wait at a time; after the end, any
    /// call returns it at once.
    func first() async -> End {
        await withCheckedContinuation { continuation in
            let known = state.withLock { s -> End? in
                if let end = s.end { return end }
                s.waiting = continuation
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
    }
}
