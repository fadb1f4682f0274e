import FollaCore
import Logging
import PostgresNIO

extension PostgresClient {
    /// Runs `body` with a client whose connection pool is running, then shuts the pool down.
    /// For short-lived work (bootstrap, `folla migrate`, `folla check`, tests); a server
    /// runs its client as a lifecycle service instead.
    public static func with<T: Sendable>(
        _ configuration: PostgresClient.Configuration, logger: Logger,
        _ body: @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            // Immediate: `run()` marks the client running before `body` leases from it (a
            // plain child task may start later, and PostgresNIO warns on every such lease).
            group.addImmediateTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}

extension PostgresClient {
    /// Runs one write statement in its own transaction and returns its rows once the COMMIT
    /// has completed, so that nothing is acknowledged before it is durable (with
    /// `synchronous_commit` on). A statement's rows arrive before its implicit commit is
    /// done, so answering as soon as they are read could acknowledge a write that a crash
    /// then loses (the crash test shows it: waiting for the statement's CommandComplete alone
    /// still loses acknowledged check-ins). The connection is held for exactly this scope and
    /// handed back whatever happens, failures included. The extra BEGIN and COMMIT cost no
    /// measurable throughput at 32 connections (1 410–1 490 check-ins/s through HTTP either
    /// way); with small batches they do, hence `committedByItself` for check-ins.
    ///
    /// A transaction rolled back whole by a deadlock or a serialization failure runs again
    /// (up to three times): group-committed check-ins lock many rows per transaction, and a
    /// check-out or a sweep that meets them in the opposite order is one side of a deadlock.
    public func committed(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await committed(logger: logger) { connection in try await connection.query(query, logger: logger).collect() }
    }

    /// Runs a prepared statement that commits before it answers (the CALL of a procedure
    /// that ends in COMMIT, such as SQL/0034's check-in batch) and returns its rows, decoded
    /// by the statement: one round trip where `committed(_:logger:)` takes three (BEGIN,
    /// the statement, COMMIT), with the same guarantee, since the procedure's rows leave
    /// the server only after its COMMIT. It runs outside any transaction (a COMMIT inside
    /// one is an error), on a connection held for this scope, and again after a deadlock
    /// as `committed(_:logger:)` does.
    /// - Parameters:
    ///   - statement: a statement whose own COMMIT comes before its rows.
    ///   - logger: for the statement and its retries.
    public func committedByItself<Statement: CommittingStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row]
    where Statement.Row: Sendable {
        precondition(statement.commits, "a rehearsal that does not commit was run as a committing statement")
        return try await committed(logger: logger, inTransaction: false) { connection in
            var rows: [Statement.Row] = []
            for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
            return rows
        }
    }

    private func committed<T: Sendable>(logger: Logger, inTransaction: Bool = true,
                                        _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await withConnection { connection in
                    try await connection.closedIfCancelled {
                        guard inTransaction else { return try await body(connection) }
                        return try await connection.transaction(logger: logger) { try await body($0) }
                    }
                }
            } catch where attempt < 3 && PSQLError.isRolledBackWhole(error) {
                logger.debug("transaction rolled back by a deadlock; running it again", metadata: ["attempt": "\(attempt)"])
            }
        }
    }
}

extension PostgresClient {
    /// All the rows of `query`, read on a leased connection that is closed if the task is
    /// cancelled meanwhile (``PostgresConnection/closedIfCancelled(_:)``). Every read a
    /// request waits on goes through here or through `committed`.
    public func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await withConnection { connection in
            try await connection.closedIfCancelled { try await connection.query(query, logger: logger).collect() }
        }
    }
}

extension PostgresConnection {
    /// `body`'s value; if the task is cancelled first, this connection is closed and the
    /// caller released as soon as the close is done.
    ///
    /// A statement waits for its answer whatever happens to the task (PostgresNIO's queries
    /// ignore cancellation), so a request in flight when the database froze (every process
    /// stopped, its connections open) waited for as long as the freeze (20 s in a test), though
    /// the database gate had cancelled it and answered nothing. Closing the connection fails
    /// the statement; the server rolls back its transaction unless the COMMIT had already
    /// reached it (then the write stands, unacknowledged, as after any cut connection).
    ///
    /// `body` runs in a task of its own that the caller does not wait for once cancelled
    /// (``FirstResult/race(_:against:)``): a statement written to a connection already closed
    /// was seen never to return. The caller does wait for the close itself: the connection
    /// goes back to the pool when the caller returns, and the pool must know it is closed by
    /// then, or it could hand it to the next waiter, whose statement would never return.
    /// - Parameter body: the work on this connection, which must not outlive it.
    public func closedIfCancelled<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await withTaskCancellationHandler {
                try await FirstResult<T>().race(body)
            } onCancel: {
                let closing: EventLoopFuture<Void> = self.close()
                _ = closing
            }
        } catch {
            if Task.isCancelled { try? await closeFuture.get() }
            throw error
        }
    }

    /// BEGIN, `body`, COMMIT. After a failure, ROLLBACK, unless the connection is closed:
    /// the server has rolled back already, and a statement written to a closed connection
    /// never returns (PostgresNIO's `withTransaction` writes its ROLLBACK regardless, and
    /// left a task waiting for good after each write cancelled by `closedIfCancelled`).
    /// Errors are the statements' own (`PSQLError`), not wrapped.
    /// - Parameter commit: false rolls back even what succeeded (a rehearsal: the warm-up).
    func transaction<T>(logger: Logger, commit: Bool = true, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await query("BEGIN;", logger: logger)
        let value: T
        do {
            value = try await body(self)
        } catch {
            if !isClosed { _ = try? await query("ROLLBACK;", logger: logger) }
            throw error
        }
        try await query(commit ? "COMMIT;" : "ROLLBACK;", logger: logger)
        return value
    }
}

/// Where the database is and how to log in.
public enum DatabaseLocation: Sendable {
    case url(String)
    case socket(path: String, user: String, database: String)

    /// A client configuration for this location, optionally for another database name.
    public func configuration(database override: String? = nil) throws -> PostgresClient.Configuration {
        switch self {
        case let .socket(path, user, database):
            return PostgresClient.Configuration(unixSocketPath: path, username: user, password: nil, database: override ?? database)
        case .url(let text):
            var c = try PostgresURL(text).configuration
            if let override { c.database = override }
            return c
        }
    }

    public var databaseName: String {
        switch self {
        case .socket(_, _, let db): db
        case .url(let text): (try? PostgresURL(text).database) ?? "postgres"
        }
    }
}
