import FollaCore
import FollaStore
import Logging
import ServiceLifecycle

/// Expires presence past its TTL, forgets devices past retention, deletes messages past
/// theirs, emptied places nothing points to and spent budget windows, every `interval`.
/// Safe to run in every server instance at once (the SQL skips rows another sweeper holds).
public struct PresenceSweeper: Service {
    let presence: PresenceStore
    let clock: any WallClock
    let interval: Duration
    let budgetWindow: Double
    let logger: Logger

    public init(presence: PresenceStore, clock: any WallClock, interval: Duration, budgetWindow: Double = 600, logger: Logger) {
        self.presence = presence
        self.clock = clock
        self.interval = interval
        self.budgetWindow = budgetWindow
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let now = clock.now()
                let expired = try await presence.expire(at: now)
                let forgotten = try await presence.forget(at: now)
                let retired = try await presence.retire(
                    at: now, messageRetention: presence.policy.messageRetention, budgetWindow: budgetWindow)
                if expired + forgotten + retired > 0 {
                    logger.info("sweep", metadata: ["expired": "\(expired)", "forgotten": "\(forgotten)", "retired": "\(retired)"])
                }
            } catch {
                logger.warning("sweep failed; will retry", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
