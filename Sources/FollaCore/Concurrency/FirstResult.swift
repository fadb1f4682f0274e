import Synchronization

/// A result that whichever of several parties provides first; later ones are ignored. For
/// waiting on work that cannot be cancelled (a query on a dead connection, a load shared by
/// many requests) while still answering at a deadline or at cancellation.
public final class FirstResult<T: Sendable>: Sendable {
    private let state = Mutex<(result: Result<T, any Error>?, waiter: CheckedContinuation<T, any Error>?)>((nil, nil))

    public init() {}

    /// Provides the result, unless one was provided before.
    public func finish(_ result: Result<T, any Error>) {
        let waiter: CheckedContinuation<T, any Error>? = state.withLock { s in
            guard s.result == nil else { return nil }
            s.result = result
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(with: result)
    }

    /// The first result (one waiter at a time).
    public var value: T {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<T, any Error>? = state.withLock { s in
                    if s.result == nil { s.waiter = continuation }
                    return s.result
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }

    /// `task`'s value, or `CancellationError` as soon as the waiting task is cancelled (the
    /// task itself goes on, for whoever else awaits it).
    public static func value(of task: Task<T, any Error>) async throws -> T {
        let first = FirstResult<T>()
        Task { first.finish(await task.result) }
        return try await withTaskCancellationHandler {
            try await first.value
        } onCancel: {
            first.finish(.failure(CancellationError()))
        }
    }
}
