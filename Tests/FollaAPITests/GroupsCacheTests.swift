import FollaCore
import FollaServices
import FollaTestSupport
import Foundation
import Testing

/// The groups read model (`PlacesReadModel`) hands the assembler a superset of places (a
/// box of grid cells) with the newest messages of each: for any centre, radius and number
/// of messages it must answer exactly what direct reads answer (it only may be up to a
/// period old; see `PlacesReadModelTests` for what changes).
@Suite struct GroupsCacheTests {
    @Test func cachedAnswersEqualDirectReads() async throws {
        try await AppFixture.run { f in
            var random = SeededRandom(seed: 42)
            // 150 people scattered over ~600 m around Piazza Maggiore.
            for n in 0..<150 {
                let lat = 44.4938 + (random.unit() - 0.5) * 0.0055
                let lon = 11.3430 + (random.unit() - 0.5) * 0.0075
                let message = n % 4 == 0 ? #","message":"m\#(n)""# : ""
                let r = try await f.post("/v1/checkins", #"{"device_id":"\#(String(format: "%040x", n))","lat":\#(lat),"lon":\#(lon)\#(message)}"#)
                #expect(r.status == .ok)
            }
            // One talkative place: more messages than any query may inline.
            for n in 0..<14 {
                let r = try await f.post("/v1/checkins", #"{"device_id":"\#(String(format: "%040x", 1000 + n))","lat":44.4938,"lon":11.3430,"message":"t\#(n)"}"#)
                #expect(r.status == .ok)
            }
            let direct = f.deps.groups
            let cached = GroupService(places: direct.places, messages: direct.messages, privacy: direct.privacy,
                                      cachePeriod: .seconds(600))
            var compared = 0, nonEmpty = 0, withMessages = 0
            for _ in 0..<300 {
                var query = GroupQuery(centre: Coordinate(latitude: 44.4938 + (random.unit() - 0.5) * 0.007,
                                                          longitude: 11.3430 + (random.unit() - 0.5) * 0.009))
                query.radius = 15 + random.unit() * 385
                query.limit = 1000
                query.messages = Int(random.unit() * 11)
                let show = { (g: Group) in "\(g.id ?? -1):\(g.people):\(g.messages.map { "\($0.id)@\($0.placeID ?? -1)" })" }
                let a = try await direct.groups(for: query).map(show)
                let b = try await cached.groups(for: query).map(show)
                #expect(a == b, "centre \(query.centre) radius \(query.radius)")
                compared += 1
                if !a.isEmpty { nonEmpty += 1 }
                if query.messages > 0, a.contains(where: { !$0.hasSuffix("[]") }) { withMessages += 1 }
            }
            #expect(compared == 300 && nonEmpty > 100 && withMessages > 50)
        }
    }
}
