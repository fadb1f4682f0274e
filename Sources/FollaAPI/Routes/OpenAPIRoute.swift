import Foundation
import Hummingbird

/// `GET /openapi.yaml`: the API contract, shipped inside the binary. A test keeps it in
/// step with the router (every route must be documented).
struct OpenAPIRoute {
    static let document: String = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
              let text = try? String(contentsOf: url, encoding: .utf8)
        else { return "openapi: 3.1.0\ninfo: {title: Folla, version: unknown}\npaths: {}\n" }
        return text
    }()

    func register(on router: RouterGroup<FollaRequestContext>) {
        router.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8", .cacheControl: "public, max-age=300"],
                     body: .init(byteBuffer: ByteBuffer(string: Self.document)))
        }
    }
}
