import PostgresNIO

extension PSQLError {
    /// The server's own words (SQLSTATE and message), which PSQLError hides from
    /// `description` in case they carry data. Safe for our logs: our statements bind
    /// parameters, and the raw device id never reaches the database.
    public var serverSummary: String {
        guard let info = serverInfo else { return String(describing: code) }
        return "\(info[.sqlState] ?? "?????"): \(info[.message] ?? "no message")\(info[.detail].map { " (\($0))" } ?? "")"
    }
}
