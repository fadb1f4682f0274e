import NIOCore

/// An event loop as a Swift task executor: the jobs of a task that prefers it run
/// on that loop's thread. The server serves each connection on its own loop (`OnItsEventLoop`),
/// and the simulator runs its phones on its client's loop (`LoadRunner`).
///
/// Written here because swift-nio 2.101 has no task executor for its loops (only a way to
/// make them the global executor, which spreads jobs over every loop). Ten lines: a job is
/// handed to the loop as a closure and run there.
public final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let loop: any EventLoop

    /// - Parameter loop: where the preferring task's jobs run.
    public init(_ loop: any EventLoop) {
        self.loop = loop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
