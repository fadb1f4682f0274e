import ArgumentParser
import FollaCore
import FollaSim
import Foundation

/// `folla-sim`: thousands of simulated phones against a Folla server, measured honestly.
@main
struct FollaSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "folla-sim",
        abstract: "Simulate a crowd of phones against a Folla server and measure it.",
        discussion: "With no --target, starts `folla serve` on an embedded PostGIS, runs the scenario, checks it and stops it.")

    @Argument(help: "Scenario file (JSON), e.g. fixtures/scenarios/bologna-evening.json")
    var scenario: String

    @Option(help: "Override the scenario's number of phones.") var phones: Int?
    @Option(help: "Override the scenario's duration in seconds.") var duration: Double?
    @Option(help: "Override the scenario's random seed.") var seed: UInt64?
    @Option(help: "Load an existing server (http://host:port) instead of starting one. Its privacy settings must match --min-group-size and --establish-* for verification, and its --new-devices-per-network must be 0 (all phones come from one address).")
    var target: String?
    @Option(help: "The server's minimum group size k (default 3, as the server's default); passed to the server folla-sim starts.")
    var minGroupSize: Int = 3
    @Option(help: "The server's establishment time in seconds (default 300); passed to the server folla-sim starts.")
    var establishAfter: Double = Establishment.standard.after
    @Option(help: "The server's establishment pings (default 3); passed to the server folla-sim starts.")
    var establishPings: Int = Establishment.standard.pings
    @Option(help: "The folla binary to start (default: the one next to folla-sim).") var folla: String?
    @Option(help: "With --target: the server's admin token, to create the venues the screens poll (without it, no screens).")
    var adminToken: String?
    @Option(help: "With --target behind a load balancer: the instances' own base URLs, comma-separated, whose /metrics are summed for the server's account of the run (default: the target's).")
    var metricsFrom: String?
    @Option(help: "HTTP connections to the server (default 256: a check-in answer holds its connection for the server's answer floor, 20 ms, and the 40 000-phone wave asks ~2 800 check-ins a second).") var connections: Int = 256
    @Option(help: "Seconds a connection may stay idle before it is closed rather than used (default 20; keep it under the server's --idle-timeout, 60 s by default).")
    var maxIdle: Double = 20
    @Option(help: "The same for a connection that has carried no request yet (default 4; keep it under the server's --head-timeout, 10 s by default, which runs from the connection's accept).")
    var maxFreshIdle: Double = 4
    @Flag(help: "Compare the server's people per hotspot with the simulator's truth at the end (and run folla check).")
    var verify = false
    @Flag(help: "Print the summary as JSON instead of a table.") var json = false
    @Option(help: "Write a self-contained HTML report with charts to this path.") var report: String?

    func run() async throws {
        var scenario: Scenario
        do { scenario = try ScenarioLoader.load(URL(fileURLWithPath: self.scenario)) } catch {
            throw ValidationError("\(self.scenario): \(error)")
        }
        if let phones { scenario.phones = phones }
        if let duration { scenario.durationS = duration }
        if let seed { scenario.seed = seed }
        do { try ScenarioLoader.validate(scenario) } catch { throw ValidationError("\(error)") }

        var server: FollaServerProcess?
        let base: String
        if let target {
            base = target
        } else {
            guard let binary = folla ?? FollaServerProcess.sibling() else {
                throw ValidationError("no folla binary next to folla-sim; pass --folla PATH or --target URL")
            }
            let s = FollaServerProcess(binary: binary, port: FollaServerProcess.freePort())
            server = s
            base = s.base
        }
        let http: LeanHTTPClient
        guard maxIdle > 0 else { throw ValidationError("--max-idle must be positive") }
        guard maxFreshIdle > 0 else { throw ValidationError("--max-fresh-idle must be positive") }
        do {
            http = try LeanHTTPClient(base: base, connections: connections, maxIdle: .nanoseconds(Int64(maxIdle * 1e9)),
                                      maxFreshIdle: .nanoseconds(Int64(maxFreshIdle * 1e9)))
        } catch { throw ValidationError("\(error)") }
        // SIGTERM or SIGINT stops the server this run started (and its PostgreSQL) before exiting.
        let stopper = server.map { SignalStopper(server: $0) }
        defer { stopper?.cancel() }
        // The truth applies the server's rule: who counts, and when.
        let rule = minGroupSize <= 1 ? Establishment.immediate : Establishment(after: establishAfter, pings: establishPings)
        do {
            if target != nil {
                if let adminToken {
                    try await FollaServerProcess.createVenues(scenario, token: adminToken, http: http)
                } else if scenario.screens.perVenue > 0 {
                    FileHandle.standardError.write(Data("no --admin-token for --target: running without venue screens\n".utf8))
                    scenario.screens.perVenue = 0
                }
            } else if let s = server {
                FileHandle.standardError.write(Data("starting folla serve on \(s.base) (embedded PostGIS)…\n".utf8))
                try await s.start(http: http, k: minGroupSize, establishment: rule)
                try await s.createVenues(scenario, http: http)
            }
            let population = Population(scenario)
            let operatorToken = target != nil ? adminToken : server?.adminToken
            let instances = metricsFrom?.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            let before = await ServerCounts.scrape(instances, via: http, adminToken: operatorToken)
            let runner = LoadRunner(client: FollaClient(http: http, phones: population.phones),
                                    truth: GroundTruth(rule: rule))
            let (ended, elapsed) = await runner.run(population) { p in
                let line = String(format: "\r%5.0f/%.0f s  phones live %6d  %7.1f req/s  p99 %7.1f ms  unexpected %d   ",
                                  p.elapsed, p.duration, p.livePhones, p.requestsPerSecond, p.p99ms, p.unexpected)
                FileHandle.standardError.write(Data(line.utf8))
            }
            FileHandle.standardError.write(Data("\n".utf8))
            var summary = RunSummary(scenario: scenario, elapsed: elapsed, book: runner.book.snapshot(), intended: ended.intendedActions)
            let client = FollaClient(http: http, phones: ended.phones)
            // Let in-flight pings settle, the server show the counts they moved (at k > 1, from
            // the first sweep of the next minute) and its groups cache (1 s by default) expire.
            let settle = verify ? SimVerify.settle(after: Date(), k: minGroupSize) : 0
            if settle > 0 { try await Task.sleep(for: .seconds(settle)) }
            // The server's own account of the run, before the verification's queries.
            if let before, let after = await ServerCounts.scrape(instances, via: http, adminToken: operatorToken) {
                summary.server = after.since(before)
            }
            // A server that no longer answers still gets its report (and a failed verification).
            let groups: [String: [[String: Any]]]
            do {
                groups = try await SimVerify.serverGroups(scenario, client: client)
            } catch {
                FileHandle.standardError.write(Data("could not read the server's groups after the run: \(error)\n".utf8))
                groups = [:]
                summary.errors["after the run: \(error)", default: 0] += 1
                if verify { summary.verified = false }
            }
            summary.groupsSample = SimVerify.mapPoints(groups)
            if verify && !groups.isEmpty {
                let v = SimVerify.compare(scenario, groups: groups, truth: runner.truth, at: elapsed + settle, k: minGroupSize)
                summary.verification = v.rows.map { .init(hotspot: $0.hotspot, expected: $0.expected, uncertain: $0.uncertain, server: $0.server, ok: $0.ok) }
                summary.verified = v.passed
                // Every answer the simulator received was counted by the server.
                if let counted = summary.server?.totalRequests, counted < Double(summary.answered) { summary.verified = false }
                summary.privacyCost = PrivacyCost.measure(groups: Array(groups.values.joined()), truth: runner.truth, at: elapsed + settle)
                if let server {
                    let check = await server.check()
                    summary.follaCheck = check.output
                    if !check.passed { summary.verified = false }
                }
            }
            if let report {
                try HTMLReport.render(summary).write(toFile: report, atomically: true, encoding: .utf8)
            }
            if json {
                let e = JSONEncoder()
                e.keyEncodingStrategy = .convertToSnakeCase
                e.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try e.encode(summary), as: UTF8.self))
            } else {
                print(summary.table())
            }
            await server?.stop()
            try await http.shutdown()
            if verify && summary.verified != true { throw ExitCode(2) }
            if summary.unexpected > 0 { throw ExitCode(1) }
        } catch {
            await server?.stop()
            try? await http.shutdown()
            throw error
        }
    }
}
