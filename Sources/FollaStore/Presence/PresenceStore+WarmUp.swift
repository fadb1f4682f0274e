import FollaCore
import Foundation
import Logging
import PostgresNIO

extension PresenceStore {
    /// Runs `requests` as one check-in batch on every connection of the pool, each in a
    /// transaction that is rolled back: nothing is written.
    ///
    /// Why: a connection's first batch costs 45–70 ms against ~6 ms warm (PostgreSQL's
    /// statement log, session 35): the backend compiles `folla_check_in` and plans each of
    /// its statements on first use, and the batch statement is prepared once per
    /// connection. Under the first second of a busy start every connection meets that at
    /// once, and the Bologna evening's first second had a p99 of 100–170 ms in every run. A
    /// few warm-up requests do not help: they reach only the connections they happen to use.
    ///
    /// - Parameters:
    ///   - requests: the pings of the batch; choose them to take the function's main paths
    ///     (a place founded, joined and stayed in), since PL/pgSQL plans a statement only
    ///     when it first runs.
    ///   - now: the pings' time.
    ///   - network: the client network's key, as check-ins pass it.
    ///   - establishment, budgets, grids: as ``checkIn(_:at:network:establishment:budgets:grids:)`` takes them.
    ///   - connections: the pool's size.
    ///   - within: the time limit (``EachConnectionTimedOut`` past it).
    /// - Returns: what became of each ping (on the connection that ended first; every
    ///   connection runs the same batch on the same state).
    @discardableResult
    public func warmUp(_ requests: [CheckInRequest], at now: Date, network: [UInt8]?, establishment: Establishment,
                       budgets: ClientBudgets, grids: JoinGrids, connections: Int,
                       within: Duration) async throws -> [Result<CheckInResult, CheckInRefusal>] {
        let statement = CheckInBatchStatement(
            pings: requests.map { pending($0, at: now, network: network, establishment: establishment, budgets: budgets, grids: grids) },
            policy: policy)
        let logger = self.logger
        let outcomes = try await client.onEachConnection(count: connections, within: within) { connection in
            try await connection.closedIfCancelled {
                try await connection.query("BEGIN;", logger: logger)
                // Rolled back whatever happens: a connection must not go back to the pool
                // inside a transaction.
                var rows: [CheckInBatchStatement.Row] = []
                do {
                    for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
                } catch {
                    if !connection.isClosed { _ = try? await connection.query("ROLLBACK;", logger: logger) }
                    throw error
                }
                try await connection.query("ROLLBACK;", logger: logger)
                return try Self.results(of: rows, count: requests.count)
            }
        }
        return outcomes.first ?? []
    }
}
