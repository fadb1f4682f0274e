import struct Foundation.Date

/// What a check-in answers, for every entry point (`/v1/checkins`, `sendData.php`): decided
/// once, by `PrivacyPolicy.answer(for:)`.
public struct CheckInAnswer: Sendable, Equatable {
    /// When the ping was recorded (the device's own time: it joins nothing public).
    public var at: Date
    /// The id of the message posted with the ping.
    public var messageID: Int64?
    /// Whether the device counts toward groups yet (established).
    public var counted: Bool
    /// Only at k = 1 (the original): what the check-in did and the exact place. Otherwise
    /// nil: an outcome, a place id or a count would tell a probe whether someone stands
    /// within the join radius of it.
    public var detail: CheckInResult?
}

extension PrivacyPolicy {
    /// The answer to a committed check-in. It tells the device nothing about other people
    /// that the public reads would not: no outcome (joined / founded / stayed / moved), no
    /// place, no count, no distance. Groups around it come from the public read.
    public func answer(for result: CheckInResult) -> CheckInAnswer {
        CheckInAnswer(at: result.at, messageID: result.messageID, counted: result.established,
                      detail: isOriginal ? result : nil)
    }
}
