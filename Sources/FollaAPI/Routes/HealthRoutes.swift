import Hummingbird

/// `/healthz`: the process is alive. `/readyz`: it can serve (database, PostGIS, schema).
struct HealthRoutes {
    let readiness: ReadinessProbe

    func register(on router: RouterGroup<FollaRequestContext>) {
        router.get("healthz") { _, _ in
            try Answer.respond(value: HealthStatus())
        }
        router.get("readyz") { _, _ in
            let status = await readiness.check()
            return try Answer.respond(status: status.ready ? .ok : .serviceUnavailable, value: status)
        }
    }
}
