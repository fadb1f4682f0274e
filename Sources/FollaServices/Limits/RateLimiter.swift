import FollaCore
import FollaStore
import Foundation

/// A per-device limit: at most `limit` events of one kind per `window` seconds (fixed
/// windows on a global grid), shared by every instance on the same database (the counters
/// are rows of `DeviceRates`).
public struct RateLimiter: Sendable {
    public let store: DeviceRates
    public let kind: DeviceRates.Kind
    public let limit: Int
    public let window: TimeInterval
    /// Ten minutes, the window of `--message-rate` and the reports' limit.
    public static let defaultWindow: TimeInterval = 600

    public init(store: DeviceRates, kind: DeviceRates.Kind, limit: Int, window: TimeInterval = defaultWindow) {
        self.store = store
        self.kind = kind
        self.limit = max(1, limit)
        self.window = window
    }

    /// Records one event for the device, or throws `RateLimited` (and records nothing).
    func limit(_ device: DeviceID, at now: Date) async throws {
        if let wait = try await store.acquire(kind, device: device, limit: limit, window: window, at: now) {
            throw RateLimited(what: kind.rawValue, limit: limit, window: window, retryAfter: Int(wait.rounded(.up)))
        }
    }
}
