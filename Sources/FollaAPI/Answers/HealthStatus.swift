/// `/healthz`: `{"status": "ok"}` while the process can answer at all.
struct HealthStatus: Encodable, Sendable {
    var status = "ok"
}
