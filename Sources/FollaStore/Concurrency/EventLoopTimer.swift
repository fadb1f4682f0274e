import FollaCore
import NIOCore
import NIOPosix

/// Waits timed by SwiftNIO's event loops (`DeadlineTimer`): the loop's epoll wakes for the
/// deadline, and the waiting task resumes on that loop, which is the one its connection
/// writes from (the server's tasks run on its loops, `Entry`). `Task.sleep` would take
/// Dispatch's timer thread and a worker thread on the way (see `DeadlineTimer`).
public struct EventLoopTimer: DeadlineTimer {
    private let group: any EventLoopGroup

    /// - Parameter group: whose loops time the waits; the current loop when the caller
    ///   runs on one of them (NIO's `any()` prefers it).
    public init(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.group = group
    }

    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        let remaining = deadline - .now
        guard remaining > .zero else { return }
        try Task.checkCancellation()
        let scheduled = group.any().scheduleTask(in: .nanoseconds(Int64(remaining / .nanoseconds(1)))) {}
        do {
            try await withTaskCancellationHandler {
                try await scheduled.futureResult.get()
            } onCancel: {
                scheduled.cancel()
            }
        } catch {
            // A cancelled timer fails with NIO's own error.
            throw CancellationError()
        }
    }
}
