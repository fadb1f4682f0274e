import FollaCore
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Screens' ETags, by screen.
final class ETagStore: Sendable {
    private let map = Mutex<[Int: String]>([:])
    func withLock<T>(_ body: (inout [Int: String]) -> T) -> T { map.withLock { body(&$0) } }
}

/// Turns population actions into HTTP requests against a Folla server.
public struct FollaClient: Sendable {
    public let http: LeanHTTPClient
    let phones: [Phone]
    /// Per-screen ETags, so polls are conditional GETs like a real screen's.
    let etags = ETagStore()

    public init(http: LeanHTTPClient, phones: [Phone]) {
        self.http = http
        self.phones = phones
    }

    public struct Outcome: Sendable {
        public var status: Int
        /// True when the answer is what a correct server gives (2xx/304, or 4xx for hostile input).
        public var expected: Bool
        /// The request carried hostile input on purpose.
        public var hostile = false
    }

    public func send(_ action: Action, truth: GroundTruth, due: Double) async throws -> Outcome {
        switch action {
        case let .checkIn(i, at, message):
            let p = phones[i]
            // Written by hand: JSONSerialization per ping cost the generator more than the rest.
            var body = "{\"device_id\":\"\(p.deviceID)\",\"lat\":\(at.latitude),\"lon\":\(at.longitude)"
            if let age = p.age, let sex = p.sex { body += ",\"age\":\(age),\"sex\":\(Self.jsonString(sex))" }
            if let message { body += ",\"message\":" + Self.jsonString(message) }
            body += "}"
            // Only devices the server counts may post: a message from a newer one is a 403.
            let standing = message == nil ? .counted : truth.standing(phone: i, at: due)
            let status = try await post("/v1/checkins", body)
            let hostile = message.map(Self.isHostile) ?? false
            if (200..<300).contains(status) { truth.accepted(phone: i, at: at, time: due) }
            let expected: Bool
            if hostile {
                expected = (400..<500).contains(status) || status == 200
            } else {
                switch standing {
                case .counted: expected = status == 200
                case .notYet: expected = status == 403
                case .uncertain: expected = status == 200 || status == 403
                }
            }
            return Outcome(status: status, expected: expected, hostile: hostile)
        case let .groups(_, around):
            let status = try await get("/v1/groups?lat=\(around.latitude)&lon=\(around.longitude)&radius=300&messages=3", etag: nil).0
            return Outcome(status: status, expected: status == 200)
        case let .checkOut(i):
            let status = try await http.execute(.DELETE, "/v1/devices/" + phones[i].deviceID, keepBody: false).status
            truth.checkedOut(phone: i)
            return Outcome(status: status, expected: status == 204 || status == 404)
        case let .pollWall(screen, slug):
            let tag = etags.withLock { $0[screen] }
            let (status, newTag) = try await get("/v1/venues/\(slug)/wall", etag: tag)
            if let newTag { etags.withLock { $0[screen] = newTag } }
            return Outcome(status: status, expected: status == 200 || status == 304)
        }
    }

    static func isHostile(_ m: String) -> Bool {
        m.contains("<") || m.unicodeScalars.contains { $0.value < 0x20 } || m.count > 280 || m.contains("DROP TABLE")
    }

    static func jsonString(_ text: String) -> String {
        // Most strings (every sex, most messages) need no escape: quoted as they are. Through
        // JSONSerialization, the sex alone of every ping cost 3 % of the generator's CPU.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            return "\"" + text + "\""
        }
        let data = try? JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
        return data.map { String(decoding: $0.dropFirst().dropLast(), as: UTF8.self) } ?? "\"\""
    }

    private func post(_ path: String, _ body: String) async throws -> Int {
        try await http.execute(.POST, path, headers: [("Content-Type", "application/json")], body: ByteBuffer(string: body),
                               keepBody: false).status
    }

    func get(_ path: String, etag: String?) async throws -> (Int, String?) {
        // A phone's read: only the status and the ETag matter to the run.
        let response = try await http.execute(.GET, path, headers: etag.map { [("If-None-Match", $0)] } ?? [], keepBody: false)
        return (response.status, response.header("ETag"))
    }

    /// The server's request and check-in counters (`GET /metrics`, behind the admin token);
    /// nil without the token or when the server has none.
    public func serverCounts(adminToken: String?) async -> ServerCounts? {
        guard let adminToken,
              let response = try? await http.execute(.GET, "/metrics", headers: [("Authorization", "Bearer \(adminToken)")]),
              response.status == 200
        else { return nil }
        return ServerCounts(exposition: String(buffer: response.body))
    }

    /// The groups the server reports around a point (up to 1000), as decoded JSON objects.
    public func groups(around centre: Coordinate, radius: Double) async throws -> [[String: Any]] {
        let response = try await http.execute(
            .GET, "/v1/groups?lat=\(centre.latitude)&lon=\(centre.longitude)&radius=\(max(15, radius))&limit=1000")
        guard response.status == 200,
              let json = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any],
              let groups = json["groups"] as? [[String: Any]]
        else { throw SimError("groups query for verification failed: HTTP \(response.status)") }
        return groups
    }
}

public struct SimError: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}
