import Hummingbird
import NIOCore

/// `GET /metrics`: the Prometheus scrape (no database needed, so it answers during an outage).
///
/// Operator-only, behind the admin bearer token (Prometheus sends it with
/// `authorization: {credentials: …}`): the counters move with single check-ins, so a public
/// scrape before and after a probe ping would tell whether someone stands within the join
/// radius of it (joined rather than founded), which the check-in answer itself withholds.
struct MetricsRoute {
    let metrics: ServerMetrics

    /// - Parameter group: a group behind `AdminAuth`.
    func register(on group: RouterGroup<FollaRequestContext>) {
        group.get("metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.render())))
        }
    }
}
