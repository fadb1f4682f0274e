import HTTPTypes
import Hummingbird
import NIOCore

/// CORS for the public reads, through Hummingbird's `CORSMiddleware`, which answers the
/// preflight (`OPTIONS` with `Origin`) and adds the headers to the actual answer.
///
/// Hummingbird's middleware would answer a preflight for any path, admin routes and writes
/// included, and for any origin it is configured with; this one first decides whether the
/// request is a public read from an allowed origin (a known path with a GET route, outside
/// `/v1/admin`) and otherwise leaves it alone: no CORS headers, so the browser refuses.
struct PublicCORSMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: CORSPolicy
    let routes: KnownRoutes
    private let cors: CORSMiddleware<Context>

    init(policy: CORSPolicy, routes: KnownRoutes) {
        self.policy = policy
        self.routes = routes
        cors = CORSMiddleware(
            allowOrigin: policy.origins == .any ? .all : .originBased,
            allowHeaders: [.accept, .contentType, .ifNoneMatch, HTTPField.Name("Last-Event-ID")!, RequestIDMiddleware<Context>.header],
            allowMethods: [.get, .head, .options],
            allowCredentials: false,
            exposedHeaders: nil,
            maxAge: .seconds(600))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], policy.allows(origin), isPublicRead(request) else {
            return try await next(request, context)
        }
        var response = try await cors.handle(request, context: context, next: next)
        // Hummingbird sends Access-Control-Expose-Headers on the preflight only, where
        // browsers ignore it; it must be on the answer for a page to read these headers.
        if request.method != .options { response.headers[.accessControlExposeHeaders] = Self.exposed }
        return response
    }

    static var exposed: String { "ETag, Retry-After, X-Request-Id" }

    private func isPublicRead(_ request: Request) -> Bool {
        let path = request.uri.path
        guard !(path == "/v1/admin" || path.hasPrefix("/v1/admin/")) else { return false }
        switch request.method {
        case .get, .head, .options: return routes.methods(for: path).contains(.get)
        default: return false
        }
    }
}
