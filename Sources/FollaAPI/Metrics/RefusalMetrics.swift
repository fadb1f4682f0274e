import FollaCore
import FollaServices
import Metrics

/// `folla_refusals_total{reason}`: every refusal by a presence rule or a rate limit, counted
/// where it becomes an answer (the problem middleware, and the legacy route that words its
/// own answer).
enum RefusalMetrics {
    static func count(_ refusal: CheckInRefusal) { count(reason: refusal.metricReason) }
    static func count(_ limited: RateLimited) { count(reason: "rate_limited_\(limited.what)") }

    private static func count(reason: String) {
        Counter(label: "folla_refusals_total", dimensions: [("reason", reason)]).increment()
    }
}
