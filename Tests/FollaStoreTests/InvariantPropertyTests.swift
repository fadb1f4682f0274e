import FollaCore
import FollaGeo
import FollaStore
import FollaTestSupport
import Foundation
import PropertyBased
import Testing

/// Any sequence of check-ins, moves, check-outs and expiries keeps every place's counters
/// equal to its live devices, and the live devices equal a simple model of who is around.
@Suite struct InvariantPropertyTests {
    enum Op: Sendable, CustomStringConvertible {
        case checkIn(device: Int, spot: Int, metres: Double, age: Int?)
        case checkOut(device: Int)
        case advance(seconds: Double)
        case expire

        var description: String {
            switch self {
            case let .checkIn(d, s, m, a): "checkIn(d\(d), spot \(s), +\(m)m, age \(a.map(String.init) ?? "-"))"
            case let .checkOut(d): "checkOut(d\(d))"
            case let .advance(s): "advance(\(Int(s))s)"
            case .expire: "expire"
            }
        }
    }


    @Test func randomHistoriesKeepTheInvariant() async throws {
        try await histories(establishment: .immediate)
    }

    /// The same with devices that count from their second ping on, as in the Bologna
    /// evening: a first ping joins without counting and a second one where it stays starts
    /// to count, each written by a statement of its own (`SQL/0035`).
    @Test func randomHistoriesKeepTheInvariantWhenDevicesCountFromTheirSecondPing() async throws {
        try await histories(establishment: Establishment(after: 0, pings: 2))
    }

    private func histories(establishment: Establishment) async throws {
        try await PresenceFixture.run { f in
            // Spots 12 m apart: pings with jitter land in different and shared places.
            let spots = (0..<5).map { offset(bologna, bearing: 90, metres: Double($0) * 12) }
            let ttl = f.store.policy.presenceTTL
            let round = Counter()
            await propertyCheck(count: 25, input: Gen.oneOf(
        zip(Gen.int(in: 0...11), Gen.int(in: 0...4), Gen.double(in: 0...14), Gen.int(in: 10...80))
            .map { Op.checkIn(device: $0, spot: $1, metres: $2, age: $3 >= 13 ? $3 : nil) },
        zip(Gen.int(in: 0...11), Gen.int(in: 0...4), Gen.double(in: 0...14))
            .map { Op.checkIn(device: $0, spot: $1, metres: $2, age: nil) },
        Gen.int(in: 0...11).map { Op.checkOut(device: $0) },
        Gen.double(in: 10...900).map { Op.advance(seconds: $0) },
        Gen.always(Op.expire)
).array(of: 1...40)) { ops in
                let base = round.next() * 100  // fresh devices for each history
                var now: TimeInterval = Double(base) * 100_000
                var lastPing: [Int: TimeInterval] = [:]  // the model: device → last ping, if live
                var ages: [Int: Int] = [:]
                for op in ops {
                    switch op {
                    case let .checkIn(d, s, m, age):
                        let at = offset(spots[s], bearing: Double(d * 31 % 360), metres: m)
                        _ = try? await f.checkIn(udid(base + d), at, age: age, sex: age.map { $0 % 2 == 0 ? .male : .female }, time: now,
                                                 establishment: establishment)
                        lastPing[d] = now
                        if let age { ages[d] = age }
                    case let .checkOut(d):
                        _ = try? await f.store.checkOut(try DeviceID(udid(base + d)), at: PresenceFixture.start.addingTimeInterval(now))
                        lastPing[d] = nil
                        ages[d] = nil
                    case let .advance(s):
                        now += s
                    case .expire:
                        _ = try? await f.store.expire(at: PresenceFixture.start.addingTimeInterval(now))
                        for (d, t) in lastPing where t < now - ttl { lastPing[d] = nil }
                    }
                }
                let violations = try? await f.store.invariantViolations()
                #expect(violations == [], "\(String(describing: violations))")
                // Earlier histories checked everyone out, so every device row is this history's.
                let live = try? await f.count("SELECT count(*) FROM device WHERE place_id IS NOT NULL")
                #expect(live == lastPing.count, "model says \(lastPing.count) live, database \(String(describing: live))")
                let ageSum = try? await f.count("SELECT coalesce(sum(age), 0)::int FROM device WHERE place_id IS NOT NULL")
                #expect(ageSum == lastPing.keys.compactMap { ages[$0] }.reduce(0, +))
                // Close this history: everyone leaves, so the next one starts from an empty map.
                for d in 0...11 { _ = try? await f.store.checkOut(try DeviceID(udid(base + d)), at: PresenceFixture.start) }
            }
        }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}
