import Hummingbird

/// In front of the routes whose contract names no query field (writes, admin, legacy,
/// health, the contract itself, wall streams): any query field is a 400 that names it. They
/// used to be ignored, so `POST /v1/messages?x=1` posted. Routes that do take query fields
/// check them themselves (`Fields.rejectUnknown`).
struct QueryFreeMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.query != nil { try request.queryFields().rejectUnknown(allowed: []) }
        return try await next(request, context)
    }
}
