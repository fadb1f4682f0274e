import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct HealthTests {
    /// Over a real socket (live server), against the real database.
    @Test func healthAndReadinessOverHTTP() async throws {
        try await AppFixture.run(.live) { f in
            let health = try await f.client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok)
            let ready = try await f.client.execute(uri: "/readyz", method: .get)
            let body = try f.json(ready)
            #expect(ready.status == .ok, "\(body)")
            #expect((body["postgis"] as? String)?.hasPrefix("3.") == true)
            #expect(body["ready"] as? Bool == true)
            #expect(ready.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test func notReadyWhenTheSchemaIsMissing() async throws {
        try await AppFixture.run { f in
            _ = try await f.db.query("DROP TABLE folla_migration", logger: TestCluster.logger)
            let ready = try await f.client.execute(uri: "/readyz", method: .get)
            #expect(ready.status == .serviceUnavailable)
            #expect(try f.json(ready)["ready"] as? Bool == false)
            #expect(try await f.client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }

    @Test func unknownRouteIsAProblem() async throws {
        try await AppFixture.run { f in
            let r = try await f.client.execute(uri: "/v1/nothing-here", method: .get)
            #expect(r.status == .notFound)
            #expect(r.headers[.contentType] == "application/problem+json")
        }
    }
}
