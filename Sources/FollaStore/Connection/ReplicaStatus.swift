import Foundation

/// The read replica, as `/readyz` reports it.
public struct ReplicaStatus: Sendable, Encodable, Equatable {
    /// `streaming`; `lagging` (further behind than the server allows: reads go to the
    /// primary); `unavailable` (reads go to the primary); `not-a-replica`; or `unknown` (not
    /// measured yet, or the primary it is measured against is unavailable).
    public var state: String
    /// WAL bytes the replica has yet to replay.
    public var lagBytes: Int?
    /// Age of the oldest write of the primary the replica has not replayed yet (0 when none).
    public var lagSeconds: Double?
    public var error: String?

    public init(state: String, lagBytes: Int? = nil, lagSeconds: Double? = nil, error: String? = nil) {
        self.state = state
        self.lagBytes = lagBytes
        self.lagSeconds = lagSeconds
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case state, error
        case lagBytes = "lag_bytes"
        case lagSeconds = "lag_seconds"
    }
}
