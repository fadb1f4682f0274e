import FollaStore
import Hummingbird

/// In front of every route that needs the database: while the monitor knows the database
/// is down, the answer is an immediate 503 with `Retry-After`; a request already waiting
/// when it goes down is released with the same 503 (instead of waiting on the pool for as
/// long as the outage lasts). Health, the OpenAPI document and the pages do not pass here (the
/// wall page gates its one read itself).
struct DatabaseGate<Context: RequestContext>: RouterMiddleware {
    let monitor: DatabaseMonitor

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await withoutActuallyEscaping(next) { next in
            // `next` is only called within this scope (the monitor's task group ends before
            // `whileAvailable` returns), so handing it to a child task is safe.
            nonisolated(unsafe) let next = next
            return try await monitor.whileAvailable { try await next(request, context) }
        }
    }
}
