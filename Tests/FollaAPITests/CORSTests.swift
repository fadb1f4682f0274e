import FollaAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Map clients on other origins may read the public API from a browser; nothing else is
/// shared: not writes, not the admin API, not with origins the operator did not allow.
@Suite struct CORSTests {
    static let origin = "https://map.example.org"

    func preflight(_ f: AppFixture, _ path: String, origin: String = origin, method: String = "GET") async throws -> TestResponse {
        try await f.client.execute(uri: path, method: .options,
                                   headers: [.origin: origin, HTTPField.Name("Access-Control-Request-Method")!: method])
    }

    @Test func publicReadsAreSharedWithAnyOriginByDefault() async throws {
        try await AppFixture.run { f in
            let pre = try await preflight(f, "/v1/groups")
            #expect(pre.status == .noContent)
            #expect(pre.headers[.accessControlAllowOrigin] == "*")
            let methods = pre.headers[.accessControlAllowMethods] ?? ""
            #expect(methods.contains("GET") && !methods.contains("POST") && !methods.contains("DELETE"), "\(methods)")
            #expect(pre.headers[.accessControlAllowCredentials] == nil)

            let read = try await f.client.execute(uri: "/v1/groups?lat=44.4938&lon=11.343", method: .get, headers: [.origin: Self.origin])
            #expect(read.status == .ok)
            #expect(read.headers[.accessControlAllowOrigin] == "*")
            #expect((read.headers[.accessControlExposeHeaders] ?? "").contains("X-Request-Id"))
            // A 400 on a public read carries the header too, so the page can read the problem.
            let bad = try await f.client.execute(uri: "/v1/groups?lat=91&lon=11", method: .get, headers: [.origin: Self.origin])
            #expect(bad.status == .badRequest && bad.headers[.accessControlAllowOrigin] == "*")
            // The place page and the wall are public reads as well.
            let wall = try await preflight(f, "/v1/venues/piazza/wall")
            #expect(wall.headers[.accessControlAllowOrigin] == "*")
        }
    }

    @Test func writesAndAdminRoutesAreNeverShared() async throws {
        try await AppFixture.run { f in
            // A form post from a page on another site needs no preflight: refused, not written.
            for (origin, type, body) in [
                (Self.origin, "application/json", #"{"device_id":"\#(udidA)","lat":44.4938,"lon":11.343}"#),
                ("https://evil.example.com", "application/x-www-form-urlencoded", "device_id=\(udidA)&lat=44.4938&lon=11.343"),
            ] {
                let write = try await f.client.execute(
                    uri: "/v1/checkins", method: .post, headers: [.origin: origin, .contentType: type], body: ByteBuffer(string: body))
                #expect(write.status == .forbidden, "\(origin)")
                #expect(write.headers[.accessControlAllowOrigin] == nil)
                #expect(String(buffer: write.body).contains("cross-origin-write"))
            }
            #expect(try await f.rowCounts() == [0, 0, 0])
            // An app sends no Origin.
            let app = try await f.post("/v1/checkins", #"{"device_id":"\#(udidA)","lat":44.4938,"lon":11.343}"#)
            #expect(app.status == .ok)
            let writePreflight = try await preflight(f, "/v1/checkins", method: "POST")
            #expect(writePreflight.headers[.accessControlAllowOrigin] == nil)
            #expect(writePreflight.status == .methodNotAllowed)

            for path in ["/v1/admin/venues", "/v1/admin/messages/1"] {
                let pre = try await preflight(f, path)
                #expect(pre.headers[.accessControlAllowOrigin] == nil, "\(path)")
            }
            let admin = try await f.client.execute(uri: "/v1/admin/venues", method: .get,
                                                   headers: [.origin: Self.origin, .authorization: "Bearer \(adminToken)"])
            #expect(admin.headers[.accessControlAllowOrigin] == nil)
            // An unknown path is not a public read either.
            let unknown = try await preflight(f, "/v1/nothing-here")
            #expect(unknown.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test func onlyTheConfiguredOriginsAreShared() async throws {
        try await AppFixture.run(cors: CORSPolicy(origins: .only([Self.origin]))) { f in
            let allowed = try await preflight(f, "/v1/groups")
            #expect(allowed.status == .noContent)
            #expect(allowed.headers[.accessControlAllowOrigin] == Self.origin)
            #expect((allowed.headers[.vary] ?? "").contains("Origin"))
            let read = try await f.client.execute(uri: "/v1/groups?lat=44.4938&lon=11.343", method: .get, headers: [.origin: Self.origin])
            #expect(read.headers[.accessControlAllowOrigin] == Self.origin)

            let other = try await preflight(f, "/v1/groups", origin: "https://evil.example.com")
            #expect(other.headers[.accessControlAllowOrigin] == nil)
            let otherRead = try await f.client.execute(uri: "/v1/groups?lat=44.4938&lon=11.343", method: .get,
                                                       headers: [.origin: "https://evil.example.com"])
            #expect(otherRead.status == .ok && otherRead.headers[.accessControlAllowOrigin] == nil)
            // The answer depends on the Origin: shared caches must keep them apart.
            #expect((otherRead.headers[.vary] ?? "").contains("Origin"))
        }
        try await AppFixture.run(cors: CORSPolicy(origins: .none)) { f in
            let pre = try await preflight(f, "/v1/groups")
            #expect(pre.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test(arguments: [
        ("*", CORSPolicy.Origins.any), ("none", .none), ("", .none),
        ("https://a.example, http://localhost:8000", .only(["https://a.example", "http://localhost:8000"])),
    ])
    func theFlagParses(_ text: String, _ expected: CORSPolicy.Origins) throws {
        #expect(try CORSPolicy(parsing: text).origins == expected)
    }

    @Test(arguments: ["map.example.org", "https://a.example/path", "ftp://a.example", "https://", "https://a b"])
    func nonOriginsAreRefused(_ text: String) {
        #expect(throws: CORSPolicyError.self) { try CORSPolicy(parsing: text) }
    }
}
