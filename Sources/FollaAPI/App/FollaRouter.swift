import FollaCore
import Hummingbird
import Logging

/// The HTTP surface of Folla: every route, behind the request-id, access-log, CORS and
/// problem middleware (outermost first).
public func buildRouter(_ deps: AppDependencies) -> Router<FollaRequestContext> {
    // HEAD is answered on every GET route (the GET's headers, no body).
    let router = Router(context: FollaRequestContext.self, options: .autoGenerateHeadEndpoints)
    let known = KnownRoutes()
    router.add(middleware: RequestIDMiddleware())
    if deps.metrics != nil { router.add(middleware: MetricsMiddleware()) }
    router.add(middleware: AccessLogMiddleware(includeClientAddress: deps.logClientAddress))
    router.add(middleware: PublicCORSMiddleware(policy: deps.cors, routes: known))
    router.add(middleware: ProblemMiddleware())
    router.add(middleware: MethodNotAllowedMiddleware(routes: known))
    HealthRoutes(readiness: deps.readiness).register(on: router)
    // (Routes see only the middleware added before them.)
    if let metrics = deps.metrics { MetricsRoute(metrics: metrics, auth: AdminAuth(token: deps.adminToken)).register(on: router) }
    // Everything that reads or writes the database answers 503 at once during an outage.
    let stored = router.group().add(middleware: DatabaseGate(monitor: deps.database))
        .add(middleware: IdempotencyMiddleware(store: deps.idempotency, clock: deps.clock, maxBodyBytes: deps.limits.maxBodyBytes))
    let v1 = stored.group("v1")
    CheckInRoutes(deps: deps).register(on: v1)
    GroupRoutes(deps: deps).register(on: v1)
    MessageRoutes(deps: deps).register(on: v1)
    WallRoutes(deps: deps).register(on: v1)
    VenueAdminRoutes(deps: deps).register(on: v1)
    LegacyRoutes(deps: deps).register(on: stored)
    WallPage(deps: deps).register(on: router)
    OpenAPIRoute().register(on: router)
    known.set(router.routes.map { ("\($0.path)", $0.method) })
    return router
}
