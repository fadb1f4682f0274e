import PostgresNIO

/// A prepared statement that commits its own work before it answers: the CALL of a
/// procedure that ends in COMMIT (SQL/0034's check-in batch).
///
/// Why a type of its own: `PostgresClient.committedByItself` runs such a statement outside
/// any transaction and trusts its rows to mean committed. Any other statement run there
/// would commit only at Sync, after its rows had been answered, so only statements that
/// say they commit may go there.
public protocol CommittingStatement: PostgresPreparedStatement {
    /// Whether this run commits; false only for a rehearsal inside a transaction the caller
    /// rolls back (never given to `committedByItself`).
    var commits: Bool { get }
}
