import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// HTTP basics: HEAD on every GET route, 405 with `Allow` for a known path and a wrong method.
@Suite struct HTTPMethodTests {
    @Test func headAnswersEveryGetRouteWithoutABody() async throws {
        try await AppFixture.run { f in
            for uri in ["/healthz", "/v1/groups?lat=44.49&lon=11.34", "/openapi.yaml", "/v1/wall?lat=44.49&lon=11.34"] {
                let get = try await f.client.execute(uri: uri, method: .get)
                let head = try await f.client.execute(uri: uri, method: .head)
                #expect(head.status == get.status, "\(uri)")
                #expect(head.body.readableBytes == 0, "\(uri)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(uri)")
            }
        }
    }

    @Test(arguments: [
        ("/v1/groups", HTTPRequest.Method("TRACE")!, "GET, HEAD"), ("/v1/groups", .put, "GET, HEAD"),
        ("/v1/checkins", .get, "POST"), ("/v1/places/7", .delete, "GET, HEAD"),
        ("/v1/admin/venues/piazza", .get, "DELETE, PUT"),
    ])
    func wrongMethodIs405WithAllow(path: String, method: HTTPRequest.Method, allow: String) async throws {
        try await AppFixture.run { f in
            let r = try await f.client.execute(uri: path, method: method)
            #expect(r.status == .methodNotAllowed, "\(method) \(path)")
            #expect(r.headers[.allow] == allow, "\(method) \(path)")
            #expect(r.headers[.contentType]?.hasPrefix("application/problem+json") == true)
            #expect(try await f.client.execute(uri: "/v1/nothing-here", method: method).status == .notFound)
        }
    }
}
