import FollaAPI
import FollaCore
import Foundation

/// Realistic answers from a Bologna evening: a third of the groups are clusters with a
/// 20-point hull, three members and three messages, a third single places with stats, a
/// third cells of small groups (no id, no stats).
enum BenchDocuments {
    static let texts = [
        "Ci vediamo sotto il Nettuno alle 22, portate da bere!",
        "Concerto in piazza: si sente benissimo anche da qui 🎶",
        "Qualcuno ha visto un portafoglio nero vicino a San Petronio? \"urgente\"",
    ]

    static func groups(count: Int) -> GroupsDocument {
        var rng = SeededRandom(seed: 42)
        func unit() -> Double { Double(rng.next() % 1_000_000) / 1_000_000 }
        let now = Date(timeIntervalSince1970: 1_795_381_500)
        let centre = Coordinate(latitude: 44.4938, longitude: 11.3430)
        var groups: [Group] = []
        for i in 0..<count {
            let position = Coordinate(latitude: centre.latitude + (unit() - 0.5) * 0.01,
                                      longitude: centre.longitude + (unit() - 0.5) * 0.014)
            let kind = i % 3
            let id: Int64? = kind == 2 ? nil : Int64(1000 + i)
            let stats = kind == 2 ? nil : PublishedStats(reported: 3 + i % 7, averageAge: kind == 0 ? 24 + unit() * 10 : nil,
                                                         male: 2 + i % 3, female: 1 + i % 4)
            let messages = kind == 0 ? (0..<3).map { m in
                Message(id: Int64(50_000 + i * 3 + m), placeID: id, text: texts[m], createdAt: now.addingTimeInterval(Double(-60 * m)))
            } : []
            let hull: [Coordinate]? = kind == 0 ? (0..<20).map { p in
                let a = Double(p) / 19 * 2 * Double.pi
                return Coordinate(latitude: position.latitude + sin(a) * 0.0002, longitude: position.longitude + cos(a) * 0.0003)
            } : nil
            groups.append(Group(id: id, position: position, isCoarsened: kind == 2, distance: unit() * 500, bearing: unit() * 360,
                                people: 3 + i % 40, stats: stats, lastActivity: now.addingTimeInterval(-unit() * 600),
                                messageCount: messages.count, messages: messages, memberPlaceIDs: kind == 0 ? [id!, id! + 1, id! + 2] : (id.map { [$0] } ?? []),
                                sources: [], hull: hull))
        }
        var query = GroupQuery(centre: centre)
        query.radius = 500
        return GroupsDocument(query: query, groups: groups)
    }

    static func checkIn() -> CheckInDocument {
        let privacy = PrivacyPolicy(k: 3, noiseKey: 1)
        let result = CheckInResult(outcome: .joined, place: PlaceSnapshot(id: 7, anchor: Coordinate(latitude: 44.4938, longitude: 11.343),
                                                                           stats: PlaceStats(people: 5, reporters: 3, ageSum: 81, male: 2, female: 1)),
                                   previousPlaceID: nil, distanceToAnchor: 3.2, messageID: 123_456, at: Date(timeIntervalSince1970: 1_795_381_500))
        return CheckInDocument(privacy.answer(for: result), privacy: privacy)
    }
}
