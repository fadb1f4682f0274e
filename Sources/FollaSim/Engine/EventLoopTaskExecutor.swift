import NIOCore

/// Runs Swift tasks on a NIO event loop (SE-0417 task executor preference), so that the
/// simulator's requests run on the thread that does their I/O.
///
/// On the global executor, each request crossed threads twice (handed to the loop, then its
/// answer's continuation resumed back on a worker), and a city-scale run's profile showed
/// ~12 % of the generator's CPU in the kernel switching threads. Written by hand: the
/// swift-nio on this machine has no event-loop task executor.
public final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    /// The loop the tasks run on.
    public let loop: any EventLoop

    /// - Parameter loop: the loop the tasks run on.
    public init(loop: any EventLoop) {
        self.loop = loop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
