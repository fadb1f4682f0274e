@testable import FollaStore
import Testing

/// The replica's lag in seconds is the age of the oldest primary write not yet replayed.
@Suite struct ReplicaLagTests {
    @Test func positionsParseAsPostgreSQLWritesThem() {
        #expect(ReplicaLag.position("0/3000060") == 0x3000060)
        #expect(ReplicaLag.position("1A/FF") == 0x1A_0000_00FF)
        #expect(ReplicaLag.position("nonsense") == nil)
    }

    @Test func lagCountsFromTheOldestUnreplayedWrite() {
        let lag = ReplicaLag()
        let t0 = ContinuousClock.now
        #expect(lag.snapshot == nil)
        // Idle for a minute, then one write: the lag starts at that write, not a minute ago.
        lag.record(primary: 100, replayed: 100, inRecovery: true, at: t0)
        #expect(lag.seconds == 0)
        lag.record(primary: 200, replayed: 100, inRecovery: true, at: t0 + .seconds(60))
        #expect(lag.seconds == 0)
        lag.record(primary: 300, replayed: 150, inRecovery: true, at: t0 + .seconds(63))
        #expect(lag.seconds == 3)
        #expect(lag.snapshot?.bytes == 150)
        // Once 200 is replayed, 300 (seen at +63 s) is the oldest.
        lag.record(primary: 300, replayed: 250, inRecovery: true, at: t0 + .seconds(64))
        #expect(lag.seconds == 1)
        lag.record(primary: 300, replayed: 300, inRecovery: true, at: t0 + .seconds(65))
        #expect(lag.seconds == 0)
        #expect(lag.snapshot?.bytes == 0)
    }
}
