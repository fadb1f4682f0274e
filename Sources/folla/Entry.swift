import Dispatch
import Foundation
import NIOCore
import NIOPosix

/// The process's entry: SwiftNIO's event loops become Swift's global executor, then the
/// command runs.
///
/// Why: by default a request crosses threads several times. NIO reads it on an event loop,
/// Hummingbird's handler runs as a task on Swift's own pool, the database client answers
/// on a loop again, and the answer is written back from the pool. On this 2-core box that
/// was four busy threads for two cores, and at the Bologna evening's moderate rate about
/// eight thread switches per check-in (session 30's profile). With the loops as the global
/// executor, a task runs on the loop that woke it (NIO's pick is sticky), so most of those
/// switches go.
///
/// The price: a task that blocks its thread now blocks a loop and the connections on it.
/// Blocking work (child processes, `pg_ctl`) already runs on threads of its own
/// (`DedicatedThread`). One kind still writes on the caller's thread: a warning or error log
/// line is flushed at once (`LogOutput.write(urgent:)`), which can take up to its patience
/// (1 s) when standard error is a pipe nobody reads. `FOLLA_NIO_EXECUTOR=0` keeps Swift's
/// pool (to compare, or should a dependency block).
///
/// The hook must be installed before any task starts, from the main thread: hence a
/// synchronous entry. Its task inherits the entry's main-actor isolation, so the main
/// thread serves the main queue (`dispatchMain`, as Swift's own async entry does) rather
/// than waiting on it (a wait there was a deadlock: the command never started).
@main
enum Entry {
    static func main() {
        if ProcessInfo.processInfo.environment["FOLLA_NIO_EXECUTOR"] != "0",
           !NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() {
            // NIO declines on compilers it does not know, or when the hook is taken.
            FileHandle.standardError.write(Data("folla: tasks run on Swift's own pool (SwiftNIO's loops could not take it over)\n".utf8))
        }
        Task {
            // Ends the process itself on an error (with ArgumentParser's exit code).
            await Folla.main()
            exit(0)
        }
        dispatchMain()
    }
}
