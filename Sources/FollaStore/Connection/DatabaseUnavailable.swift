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
