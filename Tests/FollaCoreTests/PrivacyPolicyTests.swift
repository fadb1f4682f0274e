import FollaCore
import Foundation
import Testing

/// The visibility policy on its own: what it publishes, and what differencing its stats
/// gives an attacker, measured over many groups.
@Suite struct PrivacyPolicyTests {
    let policy = PrivacyPolicy(k: 3, noiseKey: 0xF011A)
    let bologna = Coordinate(latitude: 44.4938, longitude: 11.3430)
    /// The time of the answers: a few seconds after the places' last activity.
    let publishedAt = Date(timeIntervalSince1970: 1_800_000_040)

    /// A live place whose stats snapshot (`SQL/0024`) holds its live figures.
    func place(_ id: Int64, _ c: Coordinate, people: Int, ages: [Int] = [], mix: UInt64 = 0) -> LivePlace {
        let stats = PlaceStats(people: people, reporters: ages.count, ageSum: ages.reduce(0, +),
                               male: ages.count / 2, female: ages.count - ages.count / 2)
        return LivePlace(id: id, anchor: c, stats: stats, lastActivity: Date(timeIntervalSince1970: 1_800_000_037.5),
                         messageCount: 1, mix: mix, snapshot: StatsSnapshot(stats: stats, mix: mix))
    }

    @Test func smallPlacesMergeIntoTheirCellWithoutIdentity() {
        let a = place(1, bologna, people: 1), b = place(2, Coordinate(latitude: 44.49381, longitude: 11.34301), people: 2)
        let out = policy.publish([a, b, place(3, bologna, people: 0)], at: publishedAt)
        #expect(out.count == 1)
        let cell = out[0]
        // A cell shows no messages (their lives told who had joined whom).
        #expect(cell.id == nil && cell.isCell && cell.people == 3 && cell.messageCount == 0 && cell.sources.isEmpty)
        #expect(cell.position == policy.coarsen(bologna))
        #expect(policy.stats(of: out) == nil)
        #expect(cell.lastActivity.timeIntervalSince1970.truncatingRemainder(dividingBy: 60) == 0)
    }

    /// Shown activity turns when the clock enters a quarter hour (a cell) or a minute (a
    /// place of k or more), never at a ping: floored to its newest ping's step, it turned at
    /// the first ping after each, and polling told that ping's time to ~0.2 s (outside probes,
    /// sessions 23 and 24). A cell shows the clock's quarter alone: shown as its places'
    /// newest activity before the quarter, it told a place founded in the quarter (none
    /// before) from one joined, and so where anchors lay (an outside probe, session 26). A
    /// place of k or more shows what the minute's showing computed (`SQL/0030`), not its live
    /// row's newest ping, which kept whoever came and left (an outside probe, session 26).
    @Test func activityTurnsWithTheClockNotAtAPing() {
        let quarter = 1_800_000_000.0  // a whole quarter hour
        /// A place's shown activity, its newest ping at `lastPing` and what the minute's
        /// showing computed at `shownActivity`.
        func shown(people: Int = 1, lastPing: Double, shownActivity: Double? = nil, at now: Double,
                   policy: PrivacyPolicy? = nil) -> Double {
            var p = place(1, bologna, people: people)
            p.lastActivity = Date(timeIntervalSince1970: lastPing)
            p.shownActivity = shownActivity.map { Date(timeIntervalSince1970: $0) }
            return (policy ?? self.policy).publish([p], at: Date(timeIntervalSince1970: now))[0].lastActivity.timeIntervalSince1970
        }
        // A cell: pinged just before the quarter, within it, silent for 20 minutes: the
        // quarter the clock is in, whatever the pings.
        #expect(shown(lastPing: quarter - 10, at: quarter + 40) == quarter)
        for lastPing in [quarter + 20, quarter + 35] {
            #expect(shown(lastPing: lastPing, shownActivity: quarter - 60, at: quarter + 40) == quarter, "last ping \(lastPing - quarter)")
            #expect(shown(lastPing: lastPing, at: quarter + 40) == quarter, "founded at \(lastPing - quarter)")
        }
        #expect(shown(lastPing: quarter + 890, at: quarter + 900) == quarter + 900)
        #expect(shown(lastPing: quarter - 1200, at: quarter + 40) == quarter)
        // A place founded in the quarter beside an older one reads as the older one joined.
        var old = place(1, bologna, people: 1), new = place(2, bologna, people: 1)
        old.lastActivity = Date(timeIntervalSince1970: quarter - 400)
        new.lastActivity = Date(timeIntervalSince1970: quarter + 30)
        var joined = old
        joined.lastActivity = new.lastActivity
        let now = Date(timeIntervalSince1970: quarter + 40)
        #expect(policy.publish([old, new], at: now)[0].lastActivity == policy.publish([joined], at: now)[0].lastActivity)
        // Places of k or more show the minute the showing computed, whatever their live row
        // says since (someone came and went: the same before and after).
        #expect(shown(people: 3, lastPing: quarter - 25, shownActivity: quarter - 25, at: quarter + 40) == quarter - 60)
        #expect(shown(people: 3, lastPing: quarter + 35, shownActivity: quarter - 25, at: quarter + 40) == quarter - 60)
        #expect(shown(people: 3, lastPing: quarter - 300, shownActivity: quarter - 300, at: quarter + 40) == quarter - 300)
        #expect(shown(people: 3, lastPing: quarter - 30, shownActivity: quarter - 300, at: quarter + 40) == quarter - 300)
        // Never shown as such: no later than the minute before.
        #expect(shown(people: 3, lastPing: quarter + 35, at: quarter + 40) == quarter - 60)
        #expect(shown(people: 3, lastPing: quarter - 300, at: quarter + 40) == quarter - 300)
        // k = 1 shows the ping itself.
        #expect(shown(people: 3, lastPing: quarter + 35, shownActivity: quarter - 25, at: quarter + 40, policy: PrivacyPolicy(k: 1)) == quarter + 35)
    }

    @Test func bigPlacesShowTheFineGridNotTheAnchor() {
        let out = policy.publish([place(7, bologna, people: 5)], at: publishedAt)
        #expect(out[0].id == 7 && !out[0].isCell)
        #expect(out[0].position != bologna)
        let offset = hypot((out[0].position.latitude - bologna.latitude) * 111_320,
                           (out[0].position.longitude - bologna.longitude) * 111_320 * cos(bologna.latitude * .pi / 180))
        #expect(offset <= 10 * 2.squareRoot() / 2 + 0.1)
    }

    @Test func statsNeedKReportersAndRepeatExactly() {
        #expect(policy.stats(PlaceStats(people: 5, reporters: 2, ageSum: 60, male: 1, female: 1), mix: 9) == nil)
        let s = PlaceStats(people: 5, reporters: 4, ageSum: 120, male: 2, female: 2)
        #expect(policy.stats(s, mix: 9) == policy.stats(s, mix: 9))
        #expect(policy.stats(s, mix: 9) != nil)
    }

    /// The noise does not travel with a group: the same three people read other figures in
    /// each cell they stand in, and the same figures anywhere within one cell. Before, keyed
    /// to the reporters alone, they read one fingerprint everywhere (an outside probe linked
    /// a group's places 540 m apart by it, with no device of its own).
    @Test func statsNoiseDoesNotFollowAGroupAcrossCells() {
        let ages = [24, 31, 52]
        var figures: [String] = []
        for i in 0..<20 {
            let spot = Coordinate(latitude: bologna.latitude + Double(i) * 0.002, longitude: bologna.longitude)
            let entry = policy.publish([place(Int64(i + 1), spot, people: 3, ages: ages, mix: 77)], at: publishedAt)[0]
            figures.append("\(policy.stats(of: [entry])!)")
        }
        #expect(Set(figures).count >= 10, "\(figures)")
        let cell = policy.coarsen(bologna)
        let here = policy.publish([place(1, at(cell, north: 20), people: 3, ages: ages, mix: 77)], at: publishedAt)[0]
        let there = policy.publish([place(2, at(cell, north: -20), people: 3, ages: ages, mix: 77)], at: publishedAt)[0]
        #expect(policy.stats(of: [here]) == policy.stats(of: [there]))
    }

    func at(_ c: Coordinate, north metres: Double) -> Coordinate {
        Coordinate(latitude: c.latitude + metres / 111_320, longitude: c.longitude)
    }

    /// The original (k = 1) shows everything exactly.
    @Test func originalIsExact() {
        let original = PrivacyPolicy(k: 1)
        let s = PlaceStats(people: 1, reporters: 1, ageSum: 33, male: 0, female: 1)
        #expect(original.stats(s, mix: 1) == PublishedStats(reported: 1, averageAge: 33, male: 0, female: 1))
        #expect(original.publish([place(1, bologna, people: 1)], at: publishedAt)[0].position == bologna)
    }

    /// Differencing a group of 4 against the same group after one departure, over 2 000
    /// random groups: how well does the attacker recover the leaver's age and sex?
    /// (Exactly, every time, before the noise.) And what do honest readers lose?
    @Test func departureDifferencingIsMeasuredlyNoisy() {
        var rng = SystemRandomNumberGenerator()
        var ageErrors: [Double] = [], sexRight = 0
        let trials = 2000
        for _ in 0..<trials {
            let ages = (0..<4).map { _ in Int.random(in: 18...70, using: &rng) }
            let sexes = (0..<4).map { _ in Bool.random(using: &rng) }  // true = male
            let tags = (0..<4).map { _ in UInt64.random(in: .min ... .max, using: &rng) }
            func stats(_ n: Int) -> PublishedStats? {
                let male = sexes.prefix(n).filter { $0 }.count
                return policy.stats(PlaceStats(people: n, reporters: n, ageSum: ages.prefix(n).reduce(0, +), male: male, female: n - male),
                                    mix: tags.prefix(n).reduce(0, ^))
            }
            guard let four = stats(4), let three = stats(3) else { Issue.record("stats withheld"); return }
            ageErrors.append(abs(4 * (four.averageAge ?? 0) - 3 * (three.averageAge ?? 0) - Double(ages[3])))
            let guessMale = four.male - three.male >= 1 || (four.male - three.male == 0 && four.female - three.female < 1)
            if guessMale == sexes[3] { sexRight += 1 }
        }
        ageErrors.sort()
        let median = ageErrors[trials / 2]
        let sexAccuracy = Double(sexRight) / Double(trials)
        print("differencing a departure: median age error \(median) years; sex guessed right \(Int(sexAccuracy * 100)) %")
        #expect(median > 15)
        #expect(sexAccuracy < 0.75)
    }

    /// Honest readers of a crowd of 30 reporters see an average age within 3 years in most reads.
    @Test func bigCrowdsKeepUsefulStats() {
        var close = 0
        for seed in 0..<500 {
            let s = PlaceStats(people: 30, reporters: 30, ageSum: 30 * 27, male: 15, female: 15)
            if let p = policy.stats(s, mix: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15), abs((p.averageAge ?? 0) - 27) <= 3 { close += 1 }
        }
        print("crowd of 30: average age within 3 years in \(close) of 500 noise draws")
        #expect(close > 450)
    }

    /// Subsets of places (other cluster ε, other wall radii) draw no fresh noise: a sum is
    /// the sum of each place's own noisy figures, and a place with fewer than k reporters
    /// adds nothing, so subtracting sums gives only what each place shows on its own.
    @Test func sumsAddEachPlacesOwnNoise() {
        let a = policy.publish([place(1, bologna, people: 4, ages: [20, 30, 40, 50], mix: 11)], at: publishedAt)[0]
        let b = policy.publish([place(2, Coordinate(latitude: 44.5, longitude: 11.35), people: 3, ages: [25, 35, 45], mix: 22)], at: publishedAt)[0]
        let lone = policy.publish([place(3, Coordinate(latitude: 44.51, longitude: 11.36), people: 3, ages: [66], mix: 33)], at: publishedAt)[0]
        let (sa, sb, both) = (policy.stats(of: [a])!, policy.stats(of: [b])!, policy.stats(of: [a, b])!)
        #expect(both.male == sa.male + sb.male && both.female == sa.female + sb.female)
        #expect(policy.stats(of: [a, b, lone]) == both)
        #expect(policy.stats(of: [lone]) == nil)
    }

    @Test func checkInAnswerWithholdsThePlace() {
        let r = CheckInResult(outcome: .joined, place: PlaceSnapshot(id: 4, anchor: bologna, stats: PlaceStats(people: 1, reporters: 0, ageSum: 0, male: 0, female: 0)),
                              previousPlaceID: nil, distanceToAnchor: 3, messageID: nil, at: Date(), established: false)
        #expect(policy.answer(for: r).detail == nil)
        #expect(PrivacyPolicy(k: 1).answer(for: r).detail == r)
    }
}
