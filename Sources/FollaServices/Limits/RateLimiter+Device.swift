import FollaCore
import Foundation

/// A per-device rate limit was reached.
public struct RateLimited: Error, Sendable {
    public var what: String
    public var limit: Int
    public var window: TimeInterval
    /// Whole seconds until the next attempt can succeed.
    public var retryAfter: Int
}

extension RateLimiter {
    /// Records one event for the device, or throws `RateLimited`. The limiter sees a hash of
    /// the id, not the id.
    func limit(_ device: DeviceID, at now: Date, what: String) throws(RateLimited) {
        if let wait = acquire(String(device.rawValue.hashValue), at: now) {
            throw RateLimited(what: what, limit: limit, window: window, retryAfter: Int(wait.rounded(.up)))
        }
    }
}
