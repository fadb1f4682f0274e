import struct Foundation.TimeInterval

/// The tunable rules of presence, shared by the check-in path, the sweeper and `folla check`.
public struct CheckInPolicy: Sendable, Equatable {
    /// A place is the people within this many metres (geodesic) of its anchor.
    public var joinRadius: Double
    /// Presence expires after this long without a ping.
    public var presenceTTL: TimeInterval
    /// Pings implying a faster move than this since the previous one are refused (m/s).
    public var maxSpeed: Double
    /// Devices silent this long are erased altogether (privacy: keep nothing forever).
    public var retention: TimeInterval
    /// Messages older than this are deleted (and with them the last trace of an emptied place).
    public var messageRetention: TimeInterval

    public init(joinRadius: Double = 10, presenceTTL: TimeInterval = 20 * 60, maxSpeed: Double = 350, retention: TimeInterval = 7 * 24 * 3600,
                messageRetention: TimeInterval = 24 * 3600) {
        self.joinRadius = joinRadius
        self.presenceTTL = presenceTTL
        self.maxSpeed = maxSpeed
        self.retention = retention
        self.messageRetention = messageRetention
    }

    public static let `default` = CheckInPolicy()
}
