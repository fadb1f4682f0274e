import Synchronization

/// The shown message changes announced since the feed last applied them: their places, or
/// everything (after a reconnection, or a payload that names no place).
final class PendingChanges: Sendable {
    struct Taken: Sendable {
        var all = false
        var places: Set<Int64> = []
        var isEmpty: Bool { !all && places.isEmpty }
    }

    private let state = Mutex(Taken())

    /// - Parameter payload: a notification's payload (the place id), nil after a reconnection.
    func add(_ payload: String?) {
        state.withLock { s in
            if let id = payload.flatMap({ Int64($0) }) { s.places.insert(id) } else { s.all = true }
        }
    }

    /// What was announced, forgotten here.
    func take() -> Taken {
        state.withLock { s in
            defer { s = Taken() }
            return s
        }
    }
}
