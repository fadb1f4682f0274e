import Hummingbird

/// A known path asked with a method it does not have (TRACE, PUT on /v1/groups) is a 405
/// with `Allow`, not a 404: the router only says "not found", so this middleware looks the
/// path up among the registered routes and names the methods that exist.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: KnownRoutes

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = routes.methods(for: request.uri.path)
            guard !allowed.isEmpty, !allowed.contains(request.method) else { throw error }
            let names = Set(allowed.map(\.rawValue) + (allowed.contains(.get) ? ["HEAD"] : [])).sorted()
            throw Problem.methodNotAllowed("\(request.uri.path) allows \(names.joined(separator: ", "))",
                                           allow: names.joined(separator: ", "))
        }
    }
}

/// The router's routes as path patterns (`/v1/places/:place_id`), filled once the router
/// is built, read by every request after.
final class KnownRoutes: @unchecked Sendable {
    // Written once in `buildRouter` before the server starts; only read afterwards.
    private var patterns: [(segments: [Substring], method: HTTPRequest.Method)] = []

    func set(_ routes: [(path: String, method: HTTPRequest.Method)]) {
        patterns = routes.map { ($0.path.split(separator: "/"), $0.method) }
    }

    /// The methods registered for a path matching `path` (a parameter, written ":name" or
    /// "{name}", and "*" match any one segment).
    func methods(for path: String) -> [HTTPRequest.Method] {
        let parts = path.split(separator: "/")
        return patterns.filter { p in
            p.segments.count == parts.count
                && zip(p.segments, parts).allSatisfy { $0.hasPrefix(":") || $0.hasPrefix("{") || $0 == "*" || $0 == $1 }
        }.map(\.method)
    }
}
