import PostgresNIO

/// The database cannot serve right now (down, unreachable, or not yet migrated). The API
/// answers it with 503 and `Retry-After`: nothing was done, the client may try again.
public struct DatabaseUnavailable: Error, Sendable, CustomStringConvertible {
    /// What the last probe saw, for the problem detail and `/readyz`.
    public var reason: String
    public var retryAfterSeconds: Int

    public init(reason: String, retryAfterSeconds: Int) {
        self.reason = reason
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "database unavailable: \(reason)" }
}

extension PSQLError {
    /// True when `error` is a connection failure (``isConnectionFailure``), on its own or as
    /// any part of a failed transaction: a `BEGIN` on a connection the crashed server is
    /// closing fails inside `PostgresTransactionError`, and was answered 500.
    public static func isConnectionFailure(_ error: any Error) -> Bool {
        if let error = error as? PSQLError { return error.isConnectionFailure }
        guard let transaction = error as? PostgresTransactionError else { return false }
        return [transaction.beginError, transaction.closureError, transaction.commitError, transaction.rollbackError]
            .contains { $0.map(isConnectionFailure) ?? false }
    }

    /// True for a failure of the connection itself (refused, closed, cut, the server shutting
    /// down or starting up), as opposed to an error in what was asked: the former is an
    /// outage (503), the latter a bug or a refusal.
    public var isConnectionFailure: Bool {
        switch code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
             .failedToAddSSLHandler, .sslUnsupported:
            return true
        case .server:
            // 08: connection exception; 53: insufficient resources (too many connections, out
            // of memory or disk); 57P01–57P03: admin/crash shutdown, cannot connect now.
            let state = serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || state.hasPrefix("53") || ["57P01", "57P02", "57P03"].contains(state)
        default:
            return false
        }
    }
}

extension PSQLError {
    /// Why the database refused work it would take at another time, though its connection
    /// is fine; nil for any other error. Answered as an outage (503 with `Retry-After`:
    /// nothing was done) where they were a 500, or a wait for as long as the cause lasted:
    /// - 55P03: a lock not granted within `lock_timeout` (`DatabaseOptions.lockTimeout`):
    ///   a lock held long (an operator's open transaction, a migration, `VACUUM FULL`)
    ///   held every request that met it, and once they had taken the whole pool, every
    ///   request (an outside probe, session 26: 37–74 s, no answer in between);
    /// - 25006: a write to a read-only database (a standby, `default_transaction_read_only`).
    public var refusalReason: String? {
        guard code == .server else { return nil }
        switch serverInfo?[.sqlState] {
        case "55P03": return "a lock the request needed was held too long by someone else"
        case "25006": return Self.readOnlyReason
        default: return nil
        }
    }

    /// ``refusalReason`` of `error` on its own or as any part of a failed transaction.
    public static func refusalReason(of error: any Error) -> String? {
        if let error = error as? PSQLError { return error.refusalReason }
        guard let transaction = error as? PostgresTransactionError else { return nil }
        return [transaction.beginError, transaction.closureError, transaction.commitError, transaction.rollbackError]
            .lazy.compactMap { $0.flatMap(refusalReason(of:)) }.first
    }

    static let readOnlyReason = "the database is read-only (a standby, or default_transaction_read_only)"
}
