import FollaCore
import Foundation
import Logging
import PostgresNIO

/// One ping on its way to a batch: everything `folla_check_in` takes.
struct PendingCheckIn: Sendable {
    var key: [UInt8]
    var request: CheckInRequest
    var now: Date
    var network: [UInt8]?
    var establishment: Establishment
    var budgets: ClientBudgets
    var grids: JoinGrids

    /// Pings of one ~1 km area (0.01° by 0.01°, the areas `folla_check_in_batch` locks in
    /// SQL/0012) share a writer: they lock the same place rows, and two batches in flight
    /// that locked them in opposite orders would deadlock.
    ///
    /// Side-by-side areas go to different writers (the key is the sum of the area's row and
    /// column, so neighbours differ by one: a checkerboard with two lanes), since a city's
    /// hotspots sit in neighbouring areas. A hash spread them at random, and with a
    /// per-process seed: in some runs the Bologna evening's two busiest areas shared one of
    /// the two writers and its check-ins queued for seconds, in others not.
    var lane: Int {
        let row = Int((request.position.latitude * 100).rounded(.down))
        let column = Int((request.position.longitude * 100).rounded(.down))
        return row &+ column
    }
}

extension PresenceStore {
    /// Records a ping, committed in a batch with the pings that arrived meanwhile (see
    /// `GroupCommit`). Throws `CheckInRefusal` (state unchanged) when a presence rule or the
    /// client network's budget refuses it.
    ///
    /// - Parameters:
    ///   - request: the validated ping.
    ///   - now: the application's clock.
    ///   - network: the client network's key (`DeviceKeyer.networkKey`), nil when unknown.
    ///   - establishment: when the device starts to count.
    ///   - budgets: how many new ids one network may create per window.
    ///   - grids: which places the ping may join, and where a place it founds is anchored.
    public func checkIn(_ request: CheckInRequest, at now: Date, network: [UInt8]? = nil,
                        establishment: Establishment = .immediate, budgets: ClientBudgets = .unlimited,
                        grids: JoinGrids = .none) async throws -> CheckInResult {
        let ping = pending(request, at: now, network: network, establishment: establishment, budgets: budgets, grids: grids)
        return try await writes.submit(ping, lane: ping.lane).get()
    }

    /// A ping as `folla_check_in_batch` takes it: the device's key instead of its id.
    func pending(_ request: CheckInRequest, at now: Date, network: [UInt8]?, establishment: Establishment,
                 budgets: ClientBudgets, grids: JoinGrids) -> PendingCheckIn {
        PendingCheckIn(key: keyer.key(for: request.device), request: request, now: now, network: network,
                       establishment: establishment, budgets: budgets, grids: grids)
    }

    /// One batch: `CheckInBatchStatement`, which commits before it answers, one entry per ping.
    static func write(_ pings: [PendingCheckIn], client: PostgresClient, policy: CheckInPolicy,
                      logger: Logger) async throws -> [Result<CheckInResult, CheckInRefusal>] {
        try results(of: try await client.committedByItself(CheckInBatchStatement(pings: pings, policy: policy), logger: logger)
                        .flatMap { $0 }, count: pings.count)
    }

    /// A batch's entries in the pings' order; throws if one was left out.
    static func results(of rows: [CheckInBatchStatement.Entry], count: Int) throws -> [Result<CheckInResult, CheckInRefusal>] {
        var results = [Result<CheckInResult, CheckInRefusal>?](repeating: nil, count: count)
        for row in rows { results[row.index] = row.result }
        return try results.map { result in
            guard let result else { throw StoreError.unexpected("folla_check_in_batch left a ping out") }
            return result
        }
    }
}
