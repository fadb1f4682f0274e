import Logging
import PostgresNIO
import Synchronization

/// The connection pool every store uses, renewed after an outage.
///
/// PostgresNIO's pool keeps retrying a lost server with a backoff that grows to a minute
/// (100 ms × 1.25ⁿ), with no way to reset it: after a long outage it would wait up to that
/// long before it tried again. When the ``DatabaseMonitor`` sees the database come back it
/// calls ``renew()``: a fresh pool starts at once and the old one is shut down a little
/// later, once what it was still running has had time to finish.
public final class DatabasePool: Sendable {
    private struct State {
        var client: PostgresClient
        var running: [Task<Void, Never>] = []
        var stopped = false
    }

    private let configuration: PostgresClient.Configuration?
    private let logger: Logger
    private let state: Mutex<State>

    /// The pool to lease from now; read it for every statement (it changes on renewal).
    public var client: PostgresClient { state.withLock { $0.client } }

    /// A pool that runs from now on (the stores may lease from it at once, before the
    /// server's services start) until ``maintain()`` is cancelled; ``renew()`` can replace it.
    ///
    /// Over a Unix socket (the embedded database) the pool sends no keep-alive queries:
    /// PostgresNIO times one for every connection it parks, a task group of two tasks and a
    /// Dispatch timer each time a statement hands its connection back, which was ~5 % of the
    /// server's CPU in the Bologna evening (thread wake-ups of Dispatch's timer threads). A
    /// socket whose server went away is seen closed at once without them. Over TCP they stay:
    /// a path that dies silently (a NAT's or a firewall's idle expiry) is seen only by a
    /// query, and a stuck keep-alive keeps the requests off that connection.
    ///
    /// Every connection's backend checks each second, while a statement runs, whether its
    /// client is still there (`client_connection_check_interval`, PostgreSQL 14), and gives
    /// up the statement if not. A statement cut off by a closed connection (its callers left:
    /// an outage's 503, a batch past its deadline) is then rolled back within a second
    /// rather than run to its end: a check-in batch's COMMIT is inside its own statement
    /// (SQL/0034), so a batch waiting on a lock would otherwise commit once it got the lock,
    /// its callers long told that the database could not answer.
    public init(configuration: PostgresClient.Configuration, logger: Logger) {
        var configuration = configuration
        if configuration.unixSocketPath != nil { configuration.options.keepAliveBehavior = nil }
        configuration.options.additionalStartupParameters.append(("client_connection_check_interval", "1000"))
        self.configuration = configuration
        self.logger = logger
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.state = Mutex(State(client: client, running: [Self.running(client)]))
    }

    /// A client that someone else runs (tests, one-shot commands): never renewed.
    public init(_ client: PostgresClient) {
        self.configuration = nil
        self.logger = Logger(label: "folla.pool")
        self.state = Mutex(State(client: client))
    }

    /// Keeps the pool (and its successors) running until the task is cancelled, then stops them.
    public func maintain() async {
        guard configuration != nil else { return }
        await withTaskCancellationHandler {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        } onCancel: {
            let tasks = state.withLock { s in
                s.stopped = true
                return s.running
            }
            tasks.forEach { $0.cancel() }
        }
    }

    /// Replaces the pool by a fresh one, which connects at once.
    public func renew() {
        guard let configuration else { return }
        let fresh = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let task = Self.running(fresh)
        let retired: Task<Void, Never>? = state.withLock { s in
            guard !s.stopped else { return nil }
            let previous = s.running.last
            s.client = fresh
            s.running.append(task)
            return previous
        }
        guard let retired else {
            task.cancel()
            return
        }
        logger.info("database connection pool renewed")
        // Statements already on the old pool finish (or fail) on their own; then it goes.
        Task {
            try? await Task.sleep(for: .seconds(30))
            retired.cancel()
            self.state.withLock { s in s.running.removeAll { $0 == retired } }
        }
    }

    /// Starts `client`'s pool. Immediate, so that the client is marked running before it is
    /// published to the stores: a lease before `run()` makes PostgresNIO print a warning.
    private static func running(_ client: PostgresClient) -> Task<Void, Never> {
        Task.immediate { await client.run() }
    }
}
