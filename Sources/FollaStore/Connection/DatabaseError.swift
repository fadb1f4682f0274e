import PostgresNIO

extension PSQLError {
    /// The server's own words (SQLSTATE and message), which PSQLError hides from
    /// `description` in case they carry data. Safe for our logs: our statements bind
    /// parameters, and the raw device id never reaches the database.
    public var serverSummary: String {
        guard let info = serverInfo else { return String(describing: code) }
        return "\(info[.sqlState] ?? "?????"): \(info[.message] ?? "no message")\(info[.detail].map { " (\($0))" } ?? "")"
    }

    /// The statement's own error: one run by `committed` fails inside its transaction's.
    static func statementError(_ error: any Error) -> any Error {
        (error as? PostgresTransactionError)?.closureError ?? error
    }

    /// A deadlock or a serialization failure: the whole transaction was rolled back, so it
    /// may simply run again.
    public static func isRolledBackWhole(_ error: any Error) -> Bool {
        guard let sql = statementError(error) as? PSQLError, let state = sql.serverInfo?[.sqlState] else { return false }
        return state == "40P01" || state == "40001"
    }
}
