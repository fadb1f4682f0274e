import Logging
import PostgresNIO
import Synchronization

extension PostgresClient {
    /// Runs `body` once on each of `count` different connections of the pool.
    ///
    /// PostgresNIO has no way to reach every connection of a pool, so every connection is
    /// leased at once: each lease runs `body` and then holds its connection until all
    /// `count` bodies have run, so no connection is handed out twice while another waits.
    /// The pool must be able to open `count` connections (its maximum), and nothing else
    /// may hold one for long meanwhile.
    ///
    /// - Parameters:
    ///   - count: how many connections (the pool's size to reach all of them).
    ///   - within: the whole run's time limit; past it the leases still waiting are
    ///     cancelled and ``EachConnectionTimedOut`` is thrown.
    ///   - body: the work on one connection, given its lease's number (0..<count), so that
    ///     the bodies can keep out of each other's way; it must not outlive the connection.
    /// - Returns: each body's value, in the order they ended.
    public func onEachConnection<T: Sendable>(count: Int, within: Duration,
                                              _ body: @escaping @Sendable (PostgresConnection, Int) async throws -> T) async throws -> [T] {
        guard count > 0 else { return [] }
        let done = Countdown(count)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            for lease in 0..<count {
                group.addTask {
                    try await self.withConnection { connection in
                        let value = try await body(connection, lease)
                        done.arrive()
                        try await done.wait()
                        return value
                    }
                }
            }
            group.addTask {
                // Cancelled once every body has run.
                guard (try? await Task.sleep(for: within)) != nil else { return nil }
                throw EachConnectionTimedOut(count: count, reached: count - done.remaining, within: within)
            }
            var values: [T] = []
            for try await value in group {
                guard let value else { continue }
                values.append(value)
                if values.count == count { group.cancelAll() }
            }
            return values
        }
    }
}

/// How many leases have yet to run their body. Waiting polls: this runs once at start-up,
/// for a few hundred milliseconds, and a poll every 2 ms costs nothing there, while a
/// continuation list would need its own cancellation handling.
private final class Countdown: Sendable {
    private let left: Mutex<Int>
    init(_ count: Int) { left = Mutex(count) }
    var remaining: Int { left.withLock { $0 } }
    func arrive() { left.withLock { $0 -= 1 } }
    func wait() async throws {
        while remaining > 0 { try await Task.sleep(for: .milliseconds(2)) }
    }
}
