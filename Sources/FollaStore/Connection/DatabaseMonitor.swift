import FollaCore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Knows, within about a second, whether the database can serve, so that a request that
/// needs it is refused at once with a 503 instead of waiting on a connection pool that
/// keeps trying to reconnect (PostgresNIO's pool queues a lease for as long as it takes:
/// clients hung 11–62 s before this existed).
///
/// It keeps one connection of its own, outside the pool, and probes it every half second (a
/// read and a committed write: `probe`): a probe that fails, finds the connection closed, or is late (2 s) drops the
/// connection and marks the database unavailable; it then reconnects with a growing pause (0.25 s up to 2 s, so
/// service resumes within about 2 s of the database coming back). Before it reports the
/// database available the first time, `prepare` must have succeeded on its connection
/// (the server applies its migrations there): a server started against an unreachable
/// database binds, answers 503 and keeps retrying, logging at warning level.
///
/// Requests waiting when the database goes away are released too: ``whileAvailable(_:)``
/// races them against the next outage.
public final class DatabaseMonitor: Sendable {
    public struct Settings: Sendable {
        /// Pause between probes while the database answers.
        public var interval: Duration = .milliseconds(500)
        /// A probe, or a connection attempt, that takes longer is a failure. A server that
        /// went away is seen at once (its connection closes, or connecting is refused); the
        /// deadline is for one that hangs, and is long enough that a busy machine is not
        /// mistaken for an outage.
        public var deadline: Duration = .seconds(2)
        /// Reconnection pauses grow from the first to the last.
        public var backoff: ClosedRange<Double> = 0.25...2
        /// While unavailable, a warning is logged at least this often.
        public var warnEvery: Duration = .seconds(30)
        /// The database must take writes (a primary): one that is read-only (a standby, or
        /// `default_transaction_read_only` set) is unavailable, so that every write is a 503
        /// and `/readyz` says so. Off for a replica, which only reads.
        public var takesWrites = true
        public init() {}
    }

    /// What an answer refused for the outage tells the client: try again in this many seconds.
    public var retryAfterSeconds: Int { 2 }

    private struct State {
        var available = false
        /// False until the first probe has an answer (a request at start waits for it).
        var settled = false
        var reason = "the database has not been reached yet"
        /// Released at the next outage: callers of `outage()`, and races of `whileAvailable`.
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
        var probeNow = false
    }

    private enum Waiter {
        case continuation(CheckedContinuation<Void, Never>)
        case race(OutageRace)

        func release() {
            switch self {
            case let .continuation(continuation): continuation.resume()
            case let .race(race): race.finish(.outage)
            }
        }
    }

    private let state = Mutex(State())
    private let configuration: PostgresConnection.Configuration
    let settings: Settings
    private let prepare: @Sendable (PostgresConnection) async throws -> Void
    private let recovered: @Sendable () -> Void
    let logger: Logger

    /// - Parameters:
    ///   - client: the pool's configuration; the monitor connects to the same server the same way.
    ///   - settings: probe timing.
    ///   - prepare: run once, on the monitor's own connection, before the database is first
    ///     reported available (migrations); retried with backoff until it succeeds.
    ///   - recovered: called when the database answers again after failed probes (the
    ///     server renews its pool, whose own reconnection backoff may have grown long).
    public init(client: PostgresClient.Configuration, settings: Settings = .init(), logger: Logger,
                recovered: @escaping @Sendable () -> Void = {},
                prepare: @escaping @Sendable (PostgresConnection) async throws -> Void = { _ in }) {
        self.recovered = recovered
        self.configuration = .init(client, connectTimeout: settings.deadline)
        self.settings = settings
        self.prepare = prepare
        self.logger = logger
    }

    /// True while the last probe succeeded (and `prepare` has run).
    public var isAvailable: Bool { state.withLock { $0.available } }

    /// Why the database is unavailable, for `/readyz`; nil while it is available.
    public var unavailableReason: String? { state.withLock { $0.available ? nil : $0.reason } }

    /// Runs `body` (a request that needs the database) unless the database is known to be
    /// unavailable; if it becomes unavailable while `body` runs, `body` is cancelled (a
    /// lease waiting on the pool gives up) and ``DatabaseUnavailable`` is thrown. A write
    /// cancelled this way may still have committed: a 503 is not an acknowledgement, and a
    /// retry with the same `Idempotency-Key` gets the original answer.
    ///
    /// - Parameters:
    ///   - deadline: if set, `body` taking longer also counts as the database being unavailable.
    ///     The answer still waits for `body` to end: a statement on a frozen database ignores
    ///     cancellation, so a caller that must answer in time awaits this in a task of its own
    ///     (as `ReadinessProbe` does).
    ///   - body: the work that needs the database.
    /// - Throws: `body`'s error; ``DatabaseUnavailable`` for an outage, the deadline, a
    ///   connection that failed or a refusal, and when the caller is cancelled.
    public func whileAvailable<T: Sendable>(deadline: Duration? = nil, _ body: @Sendable () async throws -> T) async throws -> T {
        let race = OutageRace()
        let id = try await enlist(race)
        defer { _ = state.withLock { $0.waiters.removeValue(forKey: id) } }
        do {
            return try await withoutActuallyEscaping(body) { body in
                try await withThrowingTaskGroup(of: T?.self) { group in
                    group.addTask {
                        defer { race.finish(.finished) }
                        return try await body()
                    }
                    if let deadline {
                        group.addTask {
                            try? await Task.sleep(for: deadline)
                            race.finish(.late)
                            return nil
                        }
                    }
                    defer { group.cancelAll() }
                    // Late, or an outage: the body is cancelled, and the group waits for it to end.
                    guard await race.first() == .finished else { throw self.unavailable() }
                    // The body's value or error (the deadline's child may end first: nil).
                    while let ended = try await group.next() {
                        if let value = ended { return value }
                    }
                    throw self.unavailable()
                }
            }
        } catch where PSQLError.isConnectionFailure(error) {
            // The pool saw the outage first: have the probe look now rather than in half a second.
            probeSoon()
            throw DatabaseUnavailable(reason: "the database connection failed", retryAfterSeconds: retryAfterSeconds)
        } catch where PSQLError.refusalReason(of: error) != nil {
            let reason = PSQLError.refusalReason(of: error) ?? ""
            // A write refused by a read-only database: the probe will say so from now on.
            if reason == PSQLError.readOnlyReason { probeSoon() }
            throw DatabaseUnavailable(reason: reason, retryAfterSeconds: retryAfterSeconds)
        } catch where Task.isCancelled && !(error is DatabaseUnavailable) {
            // The caller was cancelled, and the body with it: whatever the body threw on its
            // way out, the caller gets ``DatabaseUnavailable``, as it did when a second child
            // waiting for the outage was cancelled too and ended first.
            throw unavailable()
        }
    }

    /// Probes until cancelled (a lifecycle service runs it).
    public func watch() async {
        var connection: PostgresConnection?
        var prepared = false
        var pause = settings.backoff.lowerBound
        var lastWarning: ContinuousClock.Instant?
        var failures = 0
        var downSince: ContinuousClock.Instant?
        var seen = SeenBackend()
        var abandoned: [SeenBackend.Backend] = []
        while !Task.isCancelled {
            do {
                if connection == nil {
                    seen = SeenBackend()
                    connection = try await PostgresConnection.connect(
                        configuration: configuration, id: 0, logger: logger)
                }
                guard let connection else { continue }
                // Only after an outage long enough for the pool's own backoff to matter (1 s
                // and more after ~5 s of failures): a brief stall renews nothing.
                var renew = downSince.map { ContinuousClock.now - $0 >= .seconds(5) } ?? false
                if !prepared {
                    // A pool that waited out a long outage at start is renewed before
                    // `prepare` (which warms the pool's connections) rather than after it.
                    if renew { recovered() }
                    renew = false
                    try await prepare(connection)
                    prepared = true
                }
                try await probe(connection, seen: seen, ending: abandoned)
                abandoned.removeAll()
                if failures > 0 {
                    logger.notice("the database is reachable again", metadata: ["failedProbes": "\(failures)"])
                    if renew { recovered() }
                }
                downSince = nil
                failures = 0
                pause = settings.backoff.lowerBound
                setAvailable(true, reason: nil)
                try? await sleep(settings.interval)
            } catch {
                if Task.isCancelled { break }
                // Closed without waiting: a connection whose server vanished can take long to close.
                if let lost = connection {
                    // An open one's backend may still wait on a commit that never comes (a lost
                    // synchronous standby), holding the heartbeat's row, and would not see the
                    // close: it is ended from the next connection, or each reconnection piled up
                    // another waiting backend (22 to 28 in 20 s). One stuck in a stalled WAL
                    // flush ends only once the flush does.
                    if !lost.isClosed, let backend = seen.backend, abandoned.count < 64 { abandoned.append(backend) }
                    Task { try? await lost.close() }
                }
                connection = nil
                failures += 1
                if downSince == nil { downSince = .now }
                let reason = Self.describe(error)
                setAvailable(false, reason: reason)
                let now = ContinuousClock.now
                if failures == 1 || lastWarning.map({ now - $0 >= settings.warnEvery }) ?? true {
                    logger.warning("the database is unavailable; retrying with backoff", metadata: [
                        "reason": .string(reason), "retryIn": .string(String(format: "%.2fs", pause)),
                        "failedProbes": "\(failures)",
                    ])
                    lastWarning = now
                }
                try? await sleep(.milliseconds(Int(pause * 1000)))
                pause = min(settings.backoff.upperBound, pause * 2)
            }
        }
        try? await connection?.close()
    }

    /// Sleeps, but wakes early when a request saw a connection fail.
    private func sleep(_ duration: Duration) async throws {
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end {
            if state.withLock({ s in defer { s.probeNow = false }; return s.probeNow }) { return }
            try await Task.sleep(for: min(.milliseconds(50), end - ContinuousClock.now))
        }
    }

    private func setAvailable(_ available: Bool, reason: String?) {
        let released: [Waiter] = state.withLock { s in
            s.settled = true
            s.available = available
            if let reason { s.reason = reason }
            guard !available else { return [] }
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        released.forEach { $0.release() }
    }

    /// Has the next probe run now rather than after its pause (a statement saw the connection fail).
    func probeSoon() {
        state.withLock { $0.probeNow = true }
    }

    /// Puts `race` on the list the next outage releases, once the database is known to be
    /// available; returns its place. A request in the first moments after start waits for
    /// the first probe (a few ms when the database answers; at most the probe deadline when
    /// it does not).
    private func enlist(_ race: OutageRace) async throws -> UInt64 {
        let start = ContinuousClock.now
        while true {
            let (settled, id) = state.withLock { s -> (Bool, UInt64?) in
                guard s.settled, s.available else { return (s.settled, nil) }
                defer { s.nextWaiter += 1 }
                s.waiters[s.nextWaiter] = .race(race)
                return (true, s.nextWaiter)
            }
            if let id { return id }
            guard !settled, ContinuousClock.now - start < settings.deadline + .milliseconds(500) else { throw unavailable() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Returns when the database is next marked unavailable (or at once when the task is cancelled).
    func outage() async {
        let id = state.withLock { s in defer { s.nextWaiter += 1 }; return s.nextWaiter }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    guard s.available, !Task.isCancelled else { return true }
                    s.waiters[id] = .continuation(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.release()
        }
    }

    private func unavailable() -> DatabaseUnavailable {
        DatabaseUnavailable(reason: state.withLock { $0.reason }, retryAfterSeconds: retryAfterSeconds)
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as DatabaseUnavailable: error.reason
        case let error as PSQLError where error.serverInfo != nil:
            "database: \(error.serverInfo?[.sqlState] ?? "") \(error.serverInfo?[.message] ?? "")"
        case let error as PSQLError: "cannot reach the database (\(error.code))"
        default: "\(error)"
        }
    }
}

extension PostgresConnection.Configuration {
    /// The same server, user and database as a pool configuration, for a connection of our own.
    init(_ client: PostgresClient.Configuration, connectTimeout: Duration) {
        if let socket = client.unixSocketPath {
            self.init(unixSocketPath: socket, username: client.username, password: client.password, database: client.database)
        } else {
            // TLS to the database is not supported (PostgresURL refuses sslmode=require).
            self.init(host: client.host ?? "localhost", port: client.port ?? 5432, username: client.username,
                      password: client.password, database: client.database, tls: .disable)
        }
        options.connectTimeout = TimeAmount(connectTimeout)
    }
}
