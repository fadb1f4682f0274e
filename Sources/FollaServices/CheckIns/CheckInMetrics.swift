import FollaCore
import Metrics

/// What the write path counts: check-ins by outcome (`folla_checkins_total`) and refusals by
/// reason (`folla_refusals_total`), at the service every entry point goes through
/// (`/v1/checkins`, `sendData.php`, messages, reports).
///
/// The outcome counters are made once, here, rather than per check-in (a registry lookup
/// under two locks on the hot path); make this after swift-metrics is bootstrapped.
struct CheckInMetrics: Sendable {
    private let outcomes: [CheckInOutcome: Counter]

    init() {
        outcomes = Dictionary(uniqueKeysWithValues: CheckInOutcome.allCases.map {
            ($0, Counter(label: "folla_checkins_total", dimensions: [("outcome", $0.rawValue)]))
        })
    }

    func record(_ outcome: CheckInOutcome) { outcomes[outcome]?.increment() }

    /// Runs `body`, counting the refusal it throws, if any (and rethrowing it).
    func countingRefusals<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let refusal as CheckInRefusal {
            Self.refused(refusal.metricReason)
            throw refusal
        } catch let limited as RateLimited {
            Self.refused("rate_limited_\(limited.what)")
            throw limited
        }
    }

    private static func refused(_ reason: String) {
        Counter(label: "folla_refusals_total", dimensions: [("reason", reason)]).increment()
    }
}
