/// Times a task's short waits: a wait until a deadline, ended early by cancellation.
///
/// Why not always `Task.sleep`: Swift times its sleeps on Dispatch's timer thread, which
/// then wakes a worker thread to resume the task, and the task hops once more to the event
/// loop that writes its answer. Every check-in, check-out and wall answer waits like that
/// once (`AnswerFloor`), and on this 2-core box those thread switches were a tenth of the
/// server's CPU at the Bologna evening's rate. The server times them on its event loops
/// instead (`EventLoopTimer`, in FollaStore), whose epoll wakes for them anyway.
public protocol DeadlineTimer: Sendable {
    /// Returns at `deadline`, or throws `CancellationError` once the task is cancelled.
    /// - Parameter deadline: when to return; a past one returns at once.
    func sleep(until deadline: ContinuousClock.Instant) async throws
}

/// Swift's own `Task.sleep`: the default, and all a process without event loops has.
public struct TaskSleepTimer: DeadlineTimer {
    public init() {}

    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .continuous)
    }
}
