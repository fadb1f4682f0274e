import Hummingbird
import NIOCore

/// `GET /metrics`: the Prometheus scrape (no database needed, so it answers during an outage).
struct MetricsRoute {
    let metrics: ServerMetrics

    func register(on router: Router<FollaRequestContext>) {
        router.get("metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.render())))
        }
    }
}
