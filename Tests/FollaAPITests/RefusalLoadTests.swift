import FollaCore
import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Refusals raised inside the database (a message from a device not yet established) under
/// concurrency must hand every connection back: a Bologna-evening run once hung for good
/// after ~500 of them, every answer that needed the database waiting for a connection.
/// Played over real HTTP by 24 parallel curl clients (as the hang was first reproduced).
@Suite struct RefusalLoadTests {
    @Test func refusedWritesDoNotLeakConnections() async throws {
        try await AppFixture.run(.live, k: 3, budgets: .unlimited, maxConnections: 2) { f in
            let port = try #require(f.client.port)
            // One request per call: every third a plain ping (200), the others carry a message
            // from a fresh device (403, raised inside the check-in function).
            let one = FileManager.default.temporaryDirectory.appendingPathComponent("folla-refusal-\(UUID().uuidString).sh")
            try #"""
                i=$1; m=',"message":"ciao"'; [ $((i % 3)) -eq 0 ] && m=''
                curl -s -m 60 -o /dev/null -w '%{http_code}\n' -XPOST http://127.0.0.1:\#(port)/v1/checkins \
                  -H 'content-type: application/json' -d "{\"device_id\":\"$(printf %040x $i)\",\"lat\":44.4938,\"lon\":11.343$m}"
                """#.write(to: one, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: one) }
            // Bounded load (after a leak every request waits; under a busy CI a request may queue
            // for many seconds behind the pool of two), then one read.
            let script = """
                seq 1 1500 | timeout 180 xargs -P 24 -n 1 sh \(one.path) | sort | uniq -c
                curl -s -m 10 -o /dev/null -w 'after %{http_code}\n' 'http://127.0.0.1:\(port)/v1/groups?lat=44.4938&lon=11.343'
                """
            let output = try await ExternalProcess.run("/bin/sh", ["-c", script], deadline: 300).output
            #expect(output.contains("500 200") && output.contains("1000 403"), "\(output)")
            #expect(output.contains("after 200"), "no database connection came back after the refusals:\n\(output)")
        }
    }

}
