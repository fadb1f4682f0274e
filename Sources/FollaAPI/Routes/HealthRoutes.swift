import Foundation
import Hummingbird

/// `/healthz`: the process is alive. `/readyz`: it can serve (database, PostGIS, schema).
struct HealthRoutes {
    let readiness: ReadinessProbe

    func register(on router: Router<FollaRequestContext>) {
        router.get("healthz") { _, _ in
            JSONBody.response(.ok, "{\"status\":\"ok\"}", cache: "no-store")
        }
        router.get("readyz") { _, _ in
            let status = await readiness.check()
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.sortedKeys]
            let body = (try? encoder.encode(status)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return JSONBody.response(status.ready ? .ok : .serviceUnavailable, body, cache: "no-store")
        }
    }
}

enum JSONBody {
    static func response(_ status: HTTPResponse.Status, _ json: String, cache: String? = nil) -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let cache { headers[.cacheControl] = cache }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: json)))
    }
}
