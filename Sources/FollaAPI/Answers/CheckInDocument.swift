import FollaCore
import Foundation

/// The answer to a check-in (`POST /v1/checkins`), from the policy's `CheckInAnswer`: the
/// acknowledgement always (`message_id` null when no message came with the ping); the
/// outcome, the exact place and `previous_place_id` (null when it left none) only at k = 1,
/// the original's answer, where the keys are present; `groups` only with
/// `?include=groups`, null when that search failed after the check-in was committed.
package struct CheckInDocument: Encodable, Sendable {
    package enum Groups: Sendable {
        case notAsked
        /// The check-in is committed but the search failed: answered without groups, since
        /// a retry would post the message twice.
        case failed
        case found([GroupDTO])
    }

    package var checkedInAt: Date
    package var counted: Bool
    package var messageId: Int64?
    /// k = 1 only.
    package var detail: CheckInResult?
    package var place: CheckInPlaceDTO?
    package var groups: Groups = .notAsked

    package init(_ a: CheckInAnswer, privacy: PrivacyPolicy) {
        checkedInAt = a.at
        counted = a.counted
        messageId = a.messageID
        detail = a.detail
        place = a.detail.map { CheckInPlaceDTO($0.place, privacy: privacy) }
    }

    enum CodingKeys: String, CodingKey {
        case counted, groups, outcome, place
        case checkedInAt = "checked_in_at"
        case distanceM = "distance_m"
        case messageId = "message_id"
        case previousPlaceId = "previous_place_id"
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(checkedInAt, forKey: .checkedInAt)
        try c.encode(counted, forKey: .counted)
        try c.encodeOrNull(messageId, forKey: .messageId)
        switch groups {
        case .notAsked: break
        case .failed: try c.encodeNil(forKey: .groups)
        case .found(let found): try c.encode(found, forKey: .groups)
        }
        if let detail, let place {
            try c.encode((detail.distanceToAnchor * 100).rounded() / 100, forKey: .distanceM)
            try c.encode(detail.outcome.rawValue, forKey: .outcome)
            try c.encode(place, forKey: .place)
            try c.encodeOrNull(detail.previousPlaceID, forKey: .previousPlaceId)
        }
    }
}
