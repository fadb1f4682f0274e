import Foundation

/// A per-device rate limit was reached.
public struct RateLimited: Error, Sendable {
    public var what: String
    public var limit: Int
    public var window: TimeInterval
    /// Whole seconds until the next attempt can succeed.
    public var retryAfter: Int
}
