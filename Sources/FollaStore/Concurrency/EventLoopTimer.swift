import FollaCore
import NIOCore
import NIOPosix

/// Waits timed by SwiftNIO's event loops (`DeadlineTimer`): the current loop's epoll wakes
/// for the deadline, and the waiting task resumes on a loop (the server's tasks run on its
/// loops, `Entry`), without Dispatch's timer thread and a worker thread on the way, as
/// `Task.sleep` would (see `DeadlineTimer`).
///
/// Never early: NIO runs a scheduled task once its deadline has passed, and that deadline is
/// taken after the time left was (and a nanosecond past it, against NIO's truncation). A
/// failure other than cancellation (a loop shut down) falls back to `Task.sleep`: the answer
/// floor must not answer early because its timer failed.
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
        // NIO's conversion truncates to the nanosecond: one more keeps it from being early.
        let scheduled = group.any().scheduleTask(in: TimeAmount(remaining + .nanoseconds(1))) {}
        do {
            try await withTaskCancellationHandler {
                try await scheduled.futureResult.get()
            } onCancel: {
                scheduled.cancel()
            }
        } catch {
            // A cancelled timer fails with NIO's own error.
            if Task.isCancelled { throw CancellationError() }
            try await Task.sleep(until: deadline, clock: .continuous)
        }
    }
}
