import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// One timestamp format in every answer: `2026-11-22T21:30:00Z` (RFC 3339, UTC, whole
/// seconds). `checked_in_at` used to carry milliseconds while `last_activity` had none.
@Suite struct TimestampFormatTests {
    static func isOneFormat(_ s: String) -> Bool {
        s.wholeMatch(of: #/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/#) != nil
    }

    @Test func checkInsGroupsAndMessagesShareOneFormat() async throws {
        try await AppFixture.run { f in
            let checkIn = try f.json(try await f.post(
                "/v1/checkins", #"{"device_id":"\#(udidA)","lat":44.4938,"lon":11.343,"message":"ciao"}"#))
            let checkedIn = try #require(checkIn["checked_in_at"] as? String)
            #expect(Self.isOneFormat(checkedIn), "\(checkedIn)")

            let groups = try f.json(try await f.client.execute(uri: "/v1/groups?lat=44.4938&lon=11.343&messages=1", method: .get))
            let group = try #require((groups["groups"] as? [[String: Any]])?.first)
            let activity = try #require(group["last_activity"] as? String)
            #expect(Self.isOneFormat(activity), "\(activity)")
            let message = try #require((group["messages"] as? [[String: Any]])?.first)
            let created = try #require(message["created_at"] as? String)
            #expect(Self.isOneFormat(created), "\(created)")

            let xml = String(buffer: try await f.client.execute(uri: "/v1/groups?lat=44.4938&lon=11.343&format=xml", method: .get).body)
            let stamp = try #require(xml.firstMatch(of: #/<last_activity>([^<]+)</last_activity>/#)?.1)
            #expect(Self.isOneFormat(String(stamp)), "\(stamp)")
        }
    }
}
