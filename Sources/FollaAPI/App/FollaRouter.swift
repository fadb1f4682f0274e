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
    if deps.metrics != nil { router.add(middleware: RequestMetricsMiddleware()) }
    router.add(middleware: AccessLogMiddleware(includeClientAddress: deps.logClientAddress))
    router.add(middleware: PublicCORSMiddleware(policy: deps.cors, routes: known))
    router.add(middleware: ProblemMiddleware())
    router.add(middleware: MethodNotAllowedMiddleware(routes: known))
    // The routes whose contract names no query field refuse any (QueryFreeMiddleware).
    HealthRoutes(readiness: deps.readiness).register(on: router.group().queryFree())
    // (Routes see only the middleware added before them.)
    // Operators first: the token is checked before anything else can answer.
    let admin = router.group().add(middleware: AdminAuth(token: deps.adminToken))
    if let metrics = deps.metrics { MetricsRoute(metrics: metrics).register(on: admin.queryFree()) }
    // Everything that reads or writes the database answers 503 at once during an outage,
    // and writes may carry an Idempotency-Key.
    func stored(_ group: RouterGroup<FollaRequestContext>, floor: AnswerFloor) -> RouterGroup<FollaRequestContext> {
        group.group().add(middleware: DatabaseGate(monitor: deps.database))
            .add(middleware: IdempotencyMiddleware(store: deps.idempotency, clock: deps.clock, maxBodyBytes: deps.limits.maxBodyBytes,
                                                   floor: floor))
    }
    let adminV1 = stored(admin.queryFree(), floor: AnswerFloor(.zero)).group("v1")
    VenueAdminRoutes(deps: deps).register(on: adminV1)
    ModerationRoutes(deps: deps).register(on: adminV1)
    let floor = deps.privacy.timingFloor
    let v1 = RouteGroups(base: router.group(), path: "v1", floor: floor, stored: stored)
    CheckInRoutes(deps: deps).register(on: v1)
    GroupRoutes(deps: deps).register(on: v1)
    MapRoutes(deps: deps).register(on: v1)
    MessageRoutes(deps: deps).register(on: v1)
    WallRoutes(deps: deps).register(on: v1)
    LegacyRoutes(deps: deps).register(on: RouteGroups(base: router.group(), path: "", floor: floor, stored: stored))
    WallPage(deps: deps).register(on: router)
    // Outside the database gate: the page itself reads nothing, and during an outage it
    // should load and say so rather than be a 503.
    MapPage().register(on: router)
    OpenAPIRoute().register(on: router.group().queryFree())
    known.set(router.routes.map { ("\($0.path)", $0.method) })
    return router
}
