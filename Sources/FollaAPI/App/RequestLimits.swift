/// Sizes the server refuses to go past, whatever a client sends.
public struct RequestLimits: Sendable {
    /// Largest accepted body for writes (a check-in is a few hundred bytes).
    public var maxBodyBytes: Int = 16 * 1024

    public init(maxBodyBytes: Int = 16 * 1024) {
        self.maxBodyBytes = maxBodyBytes
    }
}
