import CoreMetrics
import Prometheus

/// The process's metrics: swift-metrics bootstrapped onto a swift-prometheus registry, which
/// `GET /metrics` renders in the Prometheus text format.
///
/// Every metric is recorded through swift-metrics (Hummingbird's `MetricsMiddleware`, the
/// services' counters), so the registry is the process-wide one: ``shared`` bootstraps the
/// metrics system on first use, once per process. Labels hold route patterns, outcomes and
/// statuses only: never a device id, a path, a coordinate or an address.
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry

    /// The metrics of this process (bootstraps swift-metrics the first time).
    public static let shared: ServerMetrics = {
        let metrics = ServerMetrics(registry: PrometheusCollectorRegistry())
        var factory = PrometheusMetricsFactory(registry: metrics.registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (names[name] ?? name, labels.map { (labelNames[$0.0] ?? $0.0, $0.1) })
        }
        // Requests here take from under a millisecond to a few seconds.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        MetricsSystem.bootstrap(factory)
        return metrics
    }()

    private init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// The exposition text (format 0.0.4).
    public func render() -> [UInt8] { registry.emitToBuffer() }

    /// Hummingbird's metric names, in Prometheus's conventions and our prefix.
    static let names: [String: String] = [
        "hb.requests": "folla_http_requests_total",
        "hb.request.errors": "folla_http_request_errors_total",
        "http.server.request.duration": "folla_http_request_duration_seconds",
        "http.server.active_requests": "folla_http_active_requests",
    ]

    static let labelNames: [String: String] = [
        "http.route": "route",
        "http.request.method": "method",
        "http.response.status_code": "status",
        "error.type": "status",
    ]
}
