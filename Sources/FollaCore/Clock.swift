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

extension Date {
    /// This instant rounded down to a whole multiple of `seconds` since 1970: how stored and
    /// published times are coarsened (messages to the minute, cells to the quarter hour).
    public func floored(toMultipleOf seconds: Double) -> Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 / seconds).rounded(.down) * seconds)
    }
}
