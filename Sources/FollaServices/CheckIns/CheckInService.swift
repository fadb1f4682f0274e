import FollaCore
import FollaStore
import Foundation

/// The one write path of people: check-ins (from `/v1/checkins` and the legacy
/// `sendData.php`), messages and reports. Every rule a write must pass (message text rules,
/// blocked words, rate limits, the budget of new ids per client network, establishment for
/// messages and reports) is applied here, so no entry point can skip one; and the
/// check-in's answer is decided here, by the privacy policy, for every entry point.
public struct CheckInService: Sendable {
    public let presence: PresenceStore
    public let messages: MessageStore
    /// Read for the place of a reported message (only a visible message may be reported).
    public let places: PlaceReads
    public let privacy: PrivacyPolicy
    public let messagePolicy: MessagePolicy
    public let messageLimiter: RateLimiter
    public let reportLimiter: RateLimiter
    public let budgets: ClientBudgets
    public let clock: any WallClock
    private let metrics = CheckInMetrics()

    public init(presence: PresenceStore, messages: MessageStore, places: PlaceReads, privacy: PrivacyPolicy, messagePolicy: MessagePolicy,
                messageLimiter: RateLimiter, reportLimiter: RateLimiter, budgets: ClientBudgets, clock: any WallClock) {
        self.presence = presence
        self.messages = messages
        self.places = places
        self.privacy = privacy
        self.messagePolicy = messagePolicy
        self.messageLimiter = messageLimiter
        self.reportLimiter = reportLimiter
        self.budgets = budgets
        self.clock = clock
    }

    /// Records a ping and answers what the policy lets the device know.
    /// - Parameters:
    ///   - request: the validated ping.
    ///   - network: the client's network prefix (`FollaRequestContext.clientNetwork`), nil when unknown.
    /// - Throws: `FieldError` (a blocked word), `RateLimited`, `CheckInRefusal`.
    public func checkIn(_ request: CheckInRequest, network: String?) async throws -> CheckInAnswer {
        try await metrics.countingRefusals {
            let now = clock.now()
            if let message = request.message {
                try messagePolicy.check(message)
                try await messageLimiter.limit(request.device, at: now)
            }
            let result = try await presence.checkIn(
                request, at: now, network: network.map(presence.keyer.networkKey), establishment: privacy.establishment,
                budgets: budgets, grids: grids)
            metrics.record(result.outcome)
            return privacy.answer(for: result)
        }
    }

    /// Which places a ping may join and where a new one is anchored, under this policy.
    private var grids: JoinGrids { privacy.joinGrids(joinRadius: presence.policy.joinRadius) }

    /// Readies every connection of the pool for check-ins before the server reports ready:
    /// one batch on each, with this service's rules, rolled back (see
    /// `PresenceStore.warmUp`). The batch takes the check-in function's main paths: a new
    /// device founds a place, a second joins it, the first pings again and stays. Each
    /// connection's batch has its own area (on the equator from Null Island east, 0.02° a
    /// connection, where no phone is expected), devices and network, so that the batches
    /// run side by side rather than one after another on the same locks.
    /// - Parameters:
    ///   - connections: the pool's size.
    ///   - within: the time limit.
    /// - Returns: what became of the first connection's three pings.
    @discardableResult
    public func warmUp(connections: Int, within: Duration) async throws -> [Result<CheckInResult, CheckInRefusal>] {
        let keyer = presence.keyer
        return try await presence.warmUp({ lease in
            // (Valid by construction: a UUID is 36 characters of hex digits and '-'.)
            let founder = try! DeviceID(UUID().uuidString), joiner = try! DeviceID(UUID().uuidString)
            let spot = Coordinate(latitude: 0, longitude: 0.02 * Double(lease))
            let requests = [
                CheckInRequest(device: founder, position: spot, demographics: Demographics(age: 30, sex: .female)),
                CheckInRequest(device: joiner, position: spot, demographics: Demographics(age: 40, sex: .male)),
                CheckInRequest(device: founder, position: spot),
            ]
            return (requests, keyer.networkKey("warm-up \(lease)"))
        }, at: clock.now(), establishment: privacy.establishment, budgets: budgets, grids: grids,
           connections: connections, within: within)
    }

    /// Checks a device out at once and erases its row (its place forgets its anchor if it empties).
    /// - Returns: false when the device is unknown.
    public func checkOut(_ device: DeviceID) async throws -> Bool {
        try await presence.checkOut(device, at: clock.now())
    }

    /// Posts a message where the device is now; nil when it is in no place.
    /// - Parameters:
    ///   - text: the validated text (`field` names it in errors).
    ///   - device: who posts; never stored with the message.
    public func post(_ text: MessageText, field: String = "text", by device: DeviceID) async throws -> Message? {
        try await metrics.countingRefusals {
            let now = clock.now()
            try messagePolicy.check(text, field: field)
            try await messageLimiter.limit(device, at: now)
            guard let posted = try await messages.post(text, by: device, at: now) else { return nil }
            // The poster is not told its place (at k = 1 it is): the message's pages name the
            // place once it is public.
            return privacy.isOriginal ? posted : privacy.messages([posted], naming: []).first
        }
    }

    /// Reports a message for moderation; only established devices count toward the threshold.
    /// Only a message a reader can see may be reported (one in a place with a public id; any
    /// at k = 1): any other is `unknown`, as an id that never was. Before (an outside probe,
    /// session 22), a message posted in a small place, which no read shows, was reported like
    /// a visible one while an unknown id was not: reports told that hidden messages existed,
    /// and counted them.
    /// - Throws: `CheckInRefusal.notEstablished` for a device that does not count yet.
    public func report(_ messageID: Int64, by device: DeviceID) async throws -> MessageStore.ReportOutcome {
        try await metrics.countingRefusals {
            let now = clock.now()
            try await reportLimiter.limit(device, at: now)
            guard try await isVisible(messageID) else { return .unknown }
            let outcome = try await messages.report(messageID, by: device, threshold: messagePolicy.reportThreshold, at: now,
                                                    requireEstablished: !privacy.isOriginal)
            if outcome == .untrusted { throw CheckInRefusal.notEstablished }
            return outcome
        }
    }

    /// Whether readers can see the message: not hidden, and in a place with a public id.
    private func isVisible(_ messageID: Int64) async throws -> Bool {
        guard let placeID = try await messages.placeID(of: messageID) else { return false }
        return try await places.isPublic(placeID, under: privacy)
    }
}
