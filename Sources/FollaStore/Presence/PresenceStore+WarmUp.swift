import FollaCore
import Foundation
import Logging
import PostgresNIO

extension PresenceStore {
    /// Runs a check-in batch on every connection of the pool, each in a transaction that is
    /// rolled back: nothing is written.
    ///
    /// Why: a connection's first batch costs 45–70 ms against ~6 ms warm (PostgreSQL's
    /// statement log, session 35): the backend compiles `folla_check_in` and plans each of
    /// its statements on first use, and the batch statement is prepared once per
    /// connection. Under the first second of a busy start every connection meets that at
    /// once, and the Bologna evening's first second had a p99 of 100–170 ms in every run. A
    /// few warm-up requests do not help: they reach only the connections they happen to use.
    ///
    /// - Parameters:
    ///   - pings: the batch for one connection, given its number: different connections
    ///     should lock different areas, devices and networks, or their batches queue on
    ///     each other's locks. Choose pings that take the function's main paths (a place
    ///     founded, joined and stayed in), since PL/pgSQL plans a statement only when it
    ///     first runs.
    ///   - now: the pings' time.
    ///   - establishment: as ``checkIn(_:at:network:establishment:budgets:grids:)`` takes it.
    ///   - budgets: as ``checkIn(_:at:network:establishment:budgets:grids:)`` takes them.
    ///   - grids: as ``checkIn(_:at:network:establishment:budgets:grids:)`` takes them.
    ///   - connections: the pool's size.
    ///   - within: the time limit (``EachConnectionTimedOut`` past it).
    /// - Returns: what became of each ping of connection 0's batch.
    @discardableResult
    public func warmUp(_ pings: @escaping @Sendable (Int) -> (requests: [CheckInRequest], network: [UInt8]?), at now: Date,
                       establishment: Establishment, budgets: ClientBudgets, grids: JoinGrids, connections: Int,
                       within: Duration) async throws -> [Result<CheckInResult, CheckInRefusal>] {
        let (logger, policy) = (self.logger, self.policy)
        let results = try await client.onEachConnection(count: connections, within: within) { connection, lease in
            let (requests, network) = pings(lease)
            let statement = CheckInBatchStatement(
                pings: requests.map { pending($0, at: now, network: network, establishment: establishment, budgets: budgets, grids: grids) },
                policy: policy, commits: false)
            return try await connection.closedIfCancelled {
                let rows = try await connection.transaction(logger: logger, commit: false) { connection in
                    var rows: [CheckInBatchStatement.Entry] = []
                    for try await row in try await connection.execute(statement, logger: logger) { rows += row }
                    return rows
                }
                return (lease: lease, outcomes: try Self.results(of: rows, count: requests.count))
            }
        }
        return results.first { $0.lease == 0 }?.outcomes ?? []
    }
}
