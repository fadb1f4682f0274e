import Synchronization

/// A value set after the closure that reads it was made: the database monitor's preparation
/// is built before the services it warms (they take the monitor), and runs only once the
/// services start, after they are set.
final class LateBound<Value: Sendable>: Sendable {
    private let stored = Mutex<Value?>(nil)

    /// The value, nil until set.
    var value: Value? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
