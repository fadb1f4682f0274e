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

    /// Whichever ends first: `work`, one of `rivals` (each returns or throws when it wins,
    /// a deadline or a watch), a result already given to ``finish(_:)``, or the cancellation
    /// of the waiting task (`CancellationError`). The losers are cancelled and not waited
    /// for: work that ignores cancellation (a query on a connection whose server was killed
    /// or frozen, seen never to return) goes on alone and its late result is dropped, where
    /// a task group would wait for it. A caller cancelled before the call starts nothing.
    /// One call per instance.
    /// - Parameters:
    ///   - work: what the caller wants, run in a task of its own.
    ///   - rivals: each run in a task of its own; `FirstResult.after(_:_:)` makes a deadline.
    public func race(_ work: @escaping @Sendable () async throws -> T,
                     against rivals: [@Sendable () async throws -> T] = []) async throws -> T {
        // A caller cancelled already starts nothing.
        if Task.isCancelled { finish(.failure(CancellationError())) }
        let decided = state.withLock { $0.result != nil }
        let tasks = decided ? [] : ([work] + rivals).map { body in
            Task { [self] in
                do { finish(.success(try await body())) } catch { finish(.failure(error)) }
            }
        }
        defer { for task in tasks { task.cancel() } }
        return try await withTaskCancellationHandler {
            try await value
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }

    /// A rival for ``race(_:against:)`` that throws `failure()` once `deadline` has passed.
    ///
    /// The rival loses nearly always and is cancelled then, so what times it matters on a hot
    /// path: a `Task.sleep` is a Dispatch timer that the cancellation does not take out of
    /// Dispatch's heap, and its setting and firing wake Dispatch's manager and a worker
    /// thread. A check-in batch sets one (with the pool's keep-alive timers, which
    /// `DatabasePool` turns off, Dispatch was ~5 % of the server's CPU in the Bologna
    /// evening's profile). The server passes its event loops' timer (`EventLoopTimer`), which
    /// a cancellation removes at once.
    /// - Parameters:
    ///   - deadline: how long the rival waits before it wins.
    ///   - timer: what times the wait (`Task.sleep` by default).
    ///   - failure: the error it wins with.
    public static func after(_ deadline: Duration, timer: any DeadlineTimer = TaskSleepTimer(),
                             _ failure: @escaping @Sendable () -> any Error) -> @Sendable () async throws -> T {
        return {
            try await timer.sleep(until: .now + deadline)
            throw failure()
        }
    }

    /// `task`'s value, or `CancellationError` as soon as the waiting task is cancelled (the
    /// task itself goes on, for whoever else awaits it: awaiting a task's value does not
    /// pass cancellation on to it).
    public static func value(of task: Task<T, any Error>) async throws -> T {
        try await FirstResult<T>().race { try await task.value }
    }
}
