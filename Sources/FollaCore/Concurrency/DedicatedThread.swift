import Foundation

/// Runs blocking work (waiting for a child process, reading its pipes to the end,
/// `pg_ctl start -w`) on a thread of its own, and resumes the caller when it ends.
///
/// Why not `DispatchQueue.global()`: on Linux, Swift's tasks run on Dispatch's global root
/// queues, and the pool behind a root queue is capped at the number of CPUs (2 on the
/// project's box). When every worker is blocked, Dispatch adds one more thread about once
/// a second, and none while any worker looks busy. Blocking work queued there takes the
/// threads every task needs: the test run stalled for minutes (in-process servers could not
/// answer the clients the blocked threads were waiting for, timers fired late) and, once,
/// hung for good. Measured: with 8 blocked Dispatch blocks, a task waited 5.5 s to start.
///
/// Why not a thread pool (`NIOThreadPool`): its threads are fixed in number, and waits that
/// last minutes or depend on each other (a child's output and its errors, read at once)
/// would queue behind each other. A thread costs tens of microseconds to start, nothing next
/// to the process or the server it waits for.
public enum DedicatedThread {
    /// Runs `body` on a new thread; returns its result or throws its error.
    /// - Parameter body: blocking work; it must not need the caller's task to finish.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            start { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Runs `body`, which cannot fail, on a new thread; returns its result.
    /// - Parameter body: blocking work; it must not need the caller's task to finish.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            start { continuation.resume(returning: body()) }
        }
    }

    /// A named thread, so that it shows as ours in a debugger.
    private static func start(_ work: @escaping @Sendable () -> Void) {
        let thread = Thread(block: work)
        thread.name = "folla.blocking"
        thread.start()
    }
}
