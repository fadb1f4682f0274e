import struct Foundation.Date

/// A place's newest activity before its newest activity's minute and before its quarter
/// hour (`SQL/0027`, kept by a trigger): nil when it had none before (founded in that step).
/// `PrivacyPolicy.shownActivity` shows these while the newest activity is in the current
/// step, so the shown value turns only with the clock.
public struct ActivityBefore: Sendable, Equatable {
    public var minute: Date?
    public var quarter: Date?

    public init(minute: Date? = nil, quarter: Date? = nil) {
        self.minute = minute
        self.quarter = quarter
    }
}
