import FollaAPI
import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /metrics` as Prometheus reads it: parsed by an independent parser (the Prometheus
/// project's Python client, from Debian), with the series an operator needs and no label
/// that could name a device, a place or a person.
@Suite struct MetricsTests {
    /// One sample: metric name, labels, value.
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// Parses exposition text with `prometheus_client.parser`; a malformed text fails the test.
    static func parse(_ text: String) async throws -> [Sample] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).txt")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            out = []
            for family in text_string_to_metric_families(open(sys.argv[1]).read()):
                for s in family.samples:
                    out.append([s.name, s.labels, s.value])
            print(json.dumps(out))
            """
        let run = try await ExternalProcess.run("/usr/bin/python3", ["-c", script, file.path], deadline: 30)
        #expect(run.status == 0, "the parser refused the text: \(run.errors)")
        let rows = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[Any]] ?? []
        return rows.map { Sample(name: $0[0] as! String, labels: $0[1] as! [String: String], value: ($0[2] as! NSNumber).doubleValue) }
    }

    static func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { s in s.name == name && labels.allSatisfy { s.labels[$0.key] == $0.value } }?.value
    }

    @Test func requestsOutcomesAndRefusalsAreCounted() async throws {
        try await AppFixture.run(metrics: true) { f in
            let device = "abad1dea00abad1dea00abad1dea00abad1dea00"
            #expect(try await f.post("/v1/checkins", #"{"device_id":"\#(device)","lat":44.4938,"lon":11.343}"#).status == .ok)
            // Across the world in no time: refused as a teleport.
            #expect(try await f.post("/v1/checkins", #"{"device_id":"\#(device)","lat":-33.86,"lon":151.2}"#).status == .conflict)
            #expect(try await f.client.execute(uri: "/v1/groups?lat=44.4938&lon=11.343", method: .get).status == .ok)
            #expect(try await f.client.execute(uri: "/v1/devices/\(device)", method: .delete).status == .noContent)
            #expect(try await f.client.execute(uri: "/v1/no-such-thing", method: .get).status == .notFound)
            // The original app's route words its own refusal: counted all the same.
            let legacyDevice = "abad1dea00abad1dea00abad1dea00abad1dea01"
            #expect(try await f.post("/sendData.php", "udid=\(legacyDevice)&latitude=44.4938&longitude=11.343&message=",
                                     contentType: "application/x-www-form-urlencoded").status == .ok)
            let before = try await Self.parse(String(buffer: try await f.client.execute(
                uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(adminToken)"]).body))
            #expect(try await f.post("/sendData.php", "udid=\(legacyDevice)&latitude=-33.86&longitude=151.2&message=",
                                     contentType: "application/x-www-form-urlencoded").status == .conflict)

            // Operators only: the counters move with single check-ins.
            #expect(try await f.client.execute(uri: "/metrics", method: .get).status == .unauthorized)
            let scrape = try await f.client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(adminToken)"])
            #expect(scrape.status == .ok)
            #expect(scrape.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = String(buffer: scrape.body)
            let samples = try await Self.parse(text)

            #expect((Self.value(samples, "folla_http_requests_total", ["route": "/v1/groups", "method": "GET", "status": "200"]) ?? 0) >= 1)
            #expect((Self.value(samples, "folla_http_requests_total", ["route": "/v1/checkins", "method": "POST", "status": "409"]) ?? 0) >= 1)
            #expect((Self.value(samples, "folla_http_request_duration_seconds_count", ["route": "/v1/groups"]) ?? 0) >= 1)
            #expect(Self.value(samples, "folla_http_request_duration_seconds_bucket", ["route": "/v1/groups", "le": "+Inf"]) != nil)
            #expect((Self.value(samples, "folla_checkins_total", ["outcome": "founded"]) ?? 0)
                    + (Self.value(samples, "folla_checkins_total", ["outcome": "joined"]) ?? 0) >= 1)
            #expect((Self.value(samples, "folla_refusals_total", ["reason": "teleport"]) ?? 0)
                    >= (Self.value(before, "folla_refusals_total", ["reason": "teleport"]) ?? 0) + 1)

            // Routes are patterns, and nothing a request carried reaches a label.
            let labelValues = samples.flatMap { $0.labels.values }
            #expect(!text.contains(device) && !text.contains("44.4938") && !text.contains("151.2"))
            #expect(labelValues.allSatisfy { !$0.contains("no-such-thing") })
            #expect(labelValues.contains { $0.contains("/v1/devices/{device_id}") || $0.contains("/v1/devices/:device_id") })
        }
    }

    /// A wall's event stream is a request in progress for as long as it is open (answers of
    /// known length are counted when ready; a stream when written to its end).
    @Test func anOpenStreamIsARequestInProgress() async throws {
        // Streams last 1.5 s in the fixture by default: this one must outlast the scrapes (on a
        // loaded CI box, five took longer than that, and 100 once all missed the stream).
        try await AppFixture.run(.live, metrics: true, streamDuration: .seconds(120)) { f in
            try await f.makeVenue()
            let port = try #require(f.client.port)
            // Holds a stream open after its first event until told to stop (a file appears), or
            // for 60 s, and says when it is open (another file): the scrapes start only then.
            let marker = FileManager.default.temporaryDirectory.appendingPathComponent("folla-stream-\(UUID().uuidString)").path
            let stop = marker + ".stop", opened = marker + ".open"
            defer { for path in [stop, opened] { try? FileManager.default.removeItem(atPath: path) } }
            let script = #"""
                import os, socket, sys, time
                s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
                s.sendall(b"GET /v1/venues/piazza/wall/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
                s.settimeout(60)
                data = b""
                while b"event: snapshot" not in data:
                    d = s.recv(65536)
                    if not d: break
                    data += d
                if b"event: snapshot" in data: open(sys.argv[3], "w").close()
                print("open" if b"event: snapshot" in data else "closed", flush=True)
                for _ in range(600):
                    if os.path.exists(sys.argv[2]): break
                    time.sleep(0.1)
                """#
            async let stream = ExternalProcess.run("/usr/bin/env", ["python3", "-c", script, "\(port)", stop, opened], deadline: 120)
            let patience = ContinuousClock.now + .seconds(60)
            while !FileManager.default.fileExists(atPath: opened), ContinuousClock.now < patience {
                try await Task.sleep(for: .milliseconds(50))
            }
            // Each scrape is a GET in progress itself: with the stream open, two. (The registry
            // is the process's; the only other requests it counts are this suite's, short.)
            var actives: [Double] = []
            for _ in 0..<5 where FileManager.default.fileExists(atPath: opened) {
                let scrape = try await f.client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(adminToken)"])
                actives.append(Self.value(try await Self.parse(String(buffer: scrape.body)), "folla_http_active_requests", ["method": "GET"]) ?? 0)
            }
            _ = FileManager.default.createFile(atPath: stop, contents: Data())
            let run = try await stream
            #expect(run.output.contains("open"), "\(run.output)\(run.errors)")
            #expect(actives.count == 5 && actives.allSatisfy { $0 >= 2 }, "GETs in progress while a stream was open: \(actives)")
        }
    }

    @Test func aServerReportsWhatIsLiveAfterASweep() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folla-metrics-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServerProcess(["--data-dir", dir, "--sweep-interval", "0.2", "--establish-after", "0",
                                        "--establish-pings", "1", "--new-devices-per-network", "0", "--admin-token", adminToken])
        defer { Task { await server.stop() } }
        let port = try await server.ready()
        for n in 0..<3 {
            let answer = try await CurlAnswer.fetch(
                "http://127.0.0.1:\(port)/v1/checkins", method: "POST",
                json: #"{"device_id":"\#(String(format: "%040x", 77 + n))","lat":44.4938,"lon":11.343}"#)
            #expect(answer.status == 200)
        }
        // A page of the server's own origin may write; another origin's may not.
        let own = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/checkins", method: "POST",
                                             json: #"{"device_id":"\#(String(format: "%040x", 99))","lat":44.4938,"lon":11.343}"#,
                                             headers: ["Origin: http://127.0.0.1:\(port)"])
        #expect(own.status == 200)
        let foreign = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/checkins", method: "POST",
                                                 json: #"{"device_id":"\#(String(format: "%040x", 98))","lat":44.4938,"lon":11.343}"#,
                                                 headers: ["Origin: https://evil.example.com"])
        #expect(foreign.status == 403)
        let groups = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/groups?lat=44.4938&lon=11.343")
        #expect(groups.status == 200)
        var samples: [Sample] = []
        // Up to a minute: sweeps every 0.2 s, but a loaded CI box can be slow to run them.
        for _ in 0..<300 {
            try await Task.sleep(for: .milliseconds(200))
            let run = try await ExternalProcess.run(
                "/usr/bin/curl", ["-s", "-H", "Authorization: Bearer \(adminToken)", "http://127.0.0.1:\(port)/metrics"], deadline: 10)
            samples = try await Self.parse(run.output)
            if (Self.value(samples, "folla_live_devices") ?? 0) >= 4 { break }
        }
        #expect(Self.value(samples, "folla_live_devices") == 4)
        #expect(Self.value(samples, "folla_live_places") == 1)
        #expect((Self.value(samples, "folla_sweeps_total") ?? 0) >= 1)
        #expect((Self.value(samples, "folla_db_backends", ["state": "idle"]) ?? 0) + (Self.value(samples, "folla_db_backends", ["state": "active"]) ?? 0) >= 1)
        #expect((Self.value(samples, "folla_checkins_total", ["outcome": "founded"]) ?? 0) == 1)
        #expect((Self.value(samples, "folla_checkins_total", ["outcome": "joined"]) ?? 0) == 3)
        #expect((Self.value(samples, "folla_refusals_total") ?? 0) == 0)
        // The groups read model's counters exist (made before the metrics were set up, they
        // would not): its first read was a full one.
        #expect((Self.value(samples, "folla_groups_model_reads_total", ["kind": "full"]) ?? 0) >= 1)
        #expect(await server.stop() == 0)
    }
}
