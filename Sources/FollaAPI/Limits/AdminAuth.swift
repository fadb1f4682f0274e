import Crypto
import Foundation
import Hummingbird

/// Bearer-token check for operator endpoints. The comparison takes the same time whatever
/// the guess (HMAC both sides, then compare digests), so the token cannot be found byte by
/// byte from response times.
///
/// A middleware in front of every admin route, ahead of the database gate and the
/// Idempotency-Key store: a caller without the token learns nothing else (not whether a key
/// was used, nor whether the database is up), and no route can forget the check.
struct AdminAuth: RouterMiddleware {
    typealias Context = FollaRequestContext
    let token: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try require(request)
        return try await next(request, context)
    }

    func require(_ request: Request) throws(Problem) {
        guard let token, !token.isEmpty else {
            throw Problem(.forbidden, type: "admin-disabled", title: "Admin API disabled",
                          detail: "this server has no admin token (--admin-token / FOLLA_ADMIN_TOKEN)")
        }
        guard let presented = Self.bearerToken(request.headers[.authorization] ?? ""),
              Self.constantTimeEqual(presented, token)
        else { throw Self.unauthorized }
    }

    /// The token of a `Bearer` credential: the scheme in any case (RFC 9110 §11.1), then one or
    /// more spaces; nil for any other scheme.
    static func bearerToken(_ header: String) -> String? {
        guard let space = header.firstIndex(of: " "), header[..<space].lowercased() == "bearer" else { return nil }
        return String(header[space...].drop { $0 == " " })
    }

    static var unauthorized: Problem {
        var problem = Problem(.unauthorized, type: "unauthorized", title: "Unauthorized",
                              detail: "a valid admin bearer token is required")
        problem.headers[.wwwAuthenticate] = "Bearer realm=\"folla-admin\""
        return problem
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let key = SymmetricKey(size: .bits256)
        let ma = HMAC<SHA256>.authenticationCode(for: Data(a.utf8), using: key)
        let mb = HMAC<SHA256>.authenticationCode(for: Data(b.utf8), using: key)
        return ma == mb  // HashedAuthenticationCode's == is constant-time
    }
}
