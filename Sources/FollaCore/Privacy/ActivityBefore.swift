import struct Foundation.Date

/// A place's newest activity before its newest activity's minute (`SQL/0027`, kept by a
/// trigger): nil when it had none before (founded in that minute).
/// `PrivacyPolicy.shownActivity` shows it while the newest activity is in the current
/// minute, so a public place's shown value turns only with the clock. (A cell's shows the
/// clock's quarter alone, `SQL/0029`: the quarter kept beside it is gone.)
public struct ActivityBefore: Sendable, Equatable {
    public var minute: Date?

    public init(minute: Date? = nil) {
        self.minute = minute
    }
}
