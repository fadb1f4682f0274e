@testable import FollaStore
import Testing

/// `OutageRace`: the first end wins, whoever reports it and whenever the caller asks.
struct OutageRaceTests {
    @Test(arguments: [OutageRace.End.finished, .late, .outage])
    func anEndBeforeTheCallerWaitsIsKept(_ end: OutageRace.End) async {
        let race = OutageRace()
        race.finish(end)
        race.finish(end == .finished ? .outage : .finished)  // later: changes nothing
        #expect(await race.first() == end)
    }

    @Test func anEndWakesTheCallerAlreadyWaiting() async {
        let race = OutageRace()
        async let first = race.first()
        // Give the caller time to park (it must be woken either way).
        try? await Task.sleep(for: .milliseconds(50))
        race.finish(.outage)
        race.finish(.finished)
        #expect(await first == .outage)
    }

    /// Many finishers at once, from many tasks: the caller gets exactly one end, the one the
    /// race recorded (asked again, it is the same).
    @Test func oneEndAmongConcurrentFinishers() async {
        for _ in 0..<200 {
            let race = OutageRace()
            async let first = race.first()
            await withTaskGroup(of: Void.self) { group in
                for end in [OutageRace.End.finished, .late, .outage, .finished, .outage] {
                    group.addTask { race.finish(end) }
                }
            }
            let seen = await first
            #expect(await race.first() == seen)
        }
    }
}
