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
        guard let origin = request.headers[.origin] else { return try await next(request, context) }
        // Withholding CORS headers only stops a page from reading an answer: a form post
        // from another site (no preflight) would still be carried out, from the visitor's
        // network and budget. Writes from a page on another origin are refused outright
        // (apps send no Origin; the server's own pages are its origin).
        if !Self.isSafe(request.method), !Self.isSameOrigin(origin, host: request.head.authority) {
            // Answered here: this middleware sits outside the one that renders problems.
            return Problem(.forbidden, type: "cross-origin-write", title: "Cross-origin write refused",
                           detail: "writes are not accepted from pages on another origin (\(origin))").response()
        }
        let publicRead = isPublicRead(request)
        guard policy.allows(origin), publicRead else {
            var response = try await next(request, context)
            // With a list of origins the answer depends on the Origin: a shared cache must
            // not hand this header-less answer to an allowed origin.
            if case .only = policy.origins, publicRead { response.headers[values: .vary].append("Origin") }
            return response
        }
        var response = try await cors.handle(request, context: context, next: next)
        // Hummingbird sends Access-Control-Expose-Headers on the preflight only, where
        // browsers ignore it; it must be on the answer for a page to read these headers.
        if request.method != .options { response.headers[.accessControlExposeHeaders] = Self.exposed }
        return response
    }

    static var exposed: String { "ETag, Retry-After, X-Request-Id" }

    static func isSafe(_ method: HTTPRequest.Method) -> Bool {
        method == .get || method == .head || method == .options
    }

    /// Whether `origin` (`scheme://host[:port]`) names the host the request was sent to.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, let range = origin.range(of: "://") else { return false }
        return origin[range.upperBound...].lowercased() == host.lowercased()
    }

    private func isPublicRead(_ request: Request) -> Bool {
        let path = request.uri.path
        guard !(path == "/v1/admin" || path.hasPrefix("/v1/admin/") || path == "/metrics") else { return false }
        switch request.method {
        case .get, .head, .options: return routes.methods(for: path).contains(.get)
        default: return false
        }
    }
}
