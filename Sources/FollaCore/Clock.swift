import struct Foundation.Date

/// Where "now" comes from. Injected everywhere time matters (check-in, expiry,
/// retention), so tests move time forward instead of waiting for it.
public protocol WallClock: Sendable {
    func now() -> Date
}

public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}
