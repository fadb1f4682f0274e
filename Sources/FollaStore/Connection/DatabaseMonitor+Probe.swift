import FollaCore
import PostgresNIO
import Synchronization

extension DatabaseMonitor {
    /// One probe within the deadline: a read (and whether the database takes writes), then,
    /// on a primary, a write committed as every write is (SQL/0033's heartbeat). The queries
    /// run in a task of their own that is not waited for: on a connection whose server was
    /// killed one was seen never to return, and a structured child would hold the monitor
    /// with it.
    ///
    /// Why the write: a database that answers reads but cannot commit (a stalled WAL flush,
    /// a lost synchronous standby) passed a read, so `/readyz` said ready while every write
    /// waited without an answer (an outside probe, session 39: messages and check-outs held
    /// for over 120 s). Taking a transaction id is not enough: a transaction that writes no
    /// WAL commits without waiting for the flush.
    /// - Parameters:
    ///   - seen: where the probe records the backend behind `connection`, before its write.
    ///   - abandoned: backends of connections given up on while still open, ended first.
    func probe(_ connection: PostgresConnection, seen: SeenBackend, ending abandoned: [SeenBackend.Backend]) async throws {
        let (logger, deadline, retry, takesWrites) = (self.logger, settings.deadline, retryAfterSeconds, settings.takesWrites)
        try await FirstResult<Void>().race({
            if !abandoned.isEmpty {
                // By pid and start: a pid alone may be another backend's by now.
                let pids = abandoned.map(\.pid), starts = abandoned.map(\.started)
                _ = try await connection.query("""
                    SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a
                    JOIN unnest(\(pids)::int[], \(starts)::text[]) AS g(pid, started) ON a.pid = g.pid AND a.backend_start::text = g.started
                    """, logger: logger).collect()
            }
            let rows = try await connection.query("""
                SELECT current_setting('transaction_read_only'), pid, backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()
                """, logger: logger).collect()
            guard let row = rows.first else { throw DatabaseUnavailable(reason: "the database does not list its own connection", retryAfterSeconds: retry) }
            let (readOnly, pid, started) = try row.decode((String, Int32, String).self)
            seen.record(.init(pid: pid, started: started))
            guard takesWrites else { return }
            if readOnly == "on" { throw DatabaseUnavailable(reason: PSQLError.readOnlyReason, retryAfterSeconds: retry) }
            _ = try await connection.query(
                "INSERT INTO monitor_heartbeat (at) VALUES (now()) ON CONFLICT (id) DO UPDATE SET at = excluded.at",
                logger: logger).collect()
        }, against: [{
            // A connection the server closed fails at once (a query on it was seen never to
            // return); a live one that does not answer fails at the deadline.
            let end = ContinuousClock.now + deadline
            while ContinuousClock.now < end, !connection.isClosed {
                try await Task.sleep(for: .milliseconds(25))
            }
            throw DatabaseUnavailable(
                reason: connection.isClosed ? "the database closed the connection"
                    : "the database did not answer within \(deadline)",
                retryAfterSeconds: retry)
        }])
    }
}

/// The backend behind the monitor's current connection, as its probe found it.
final class SeenBackend: Sendable {
    struct Backend: Sendable {
        let pid: Int32
        /// `backend_start` as text: with the pid, names one backend for good.
        let started: String
    }

    private let state = Mutex<Backend?>(nil)

    var backend: Backend? { state.withLock { $0 } }

    func record(_ backend: Backend) {
        state.withLock { $0 = backend }
    }
}
