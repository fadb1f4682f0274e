import FollaCore
import FollaTestSupport
import Foundation
import Testing

/// The published contract, checked from outside: schemathesis generates several thousand
/// requests from `/openapi.yaml` (valid and invalid ones, unsupported methods, requests
/// without the admin token, stateful sequences) against a real server on a real PostGIS,
/// and runs every check it has on the answers: no 5xx, only documented status codes and
/// content types, bodies and headers that match their schemas, every schema-valid request
/// accepted and every schema-invalid one refused.
///
/// The exceptions live in `Tests/Contract/schemathesis.toml`, each with its reason; the
/// hook in `Tests/Contract/hooks.py` makes valid Idempotency-Keys unique per request.
@Suite(.serialized) struct ContractTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let schemathesis = root.appendingPathComponent(".venv/bin/schemathesis").path

    @Test func theServerKeepsItsOpenAPIContract() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.schemathesis),
                "schemathesis is missing: run tools/install-deps")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folla-contract-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let token = "contract-\(UUID().uuidString)"
        // Wall event streams end after 2 s, so that reading one ends; no budget of new
        // device ids, so that thousands of generated ids are checked rather than refused.
        let server = try ServerProcess(["--data-dir", dir, "--admin-token", token, "--new-devices-per-network", "0",
                                        "--wall-stream-seconds", "2"])
        let port = try await server.ready()
        let contract = Self.root.appendingPathComponent("Tests/Contract")
        // A fixed seed: a failure found here can be replayed exactly (`st replay` or the same
        // command); other seeds are for exploring by hand.
        let arguments = ["--config-file", "schemathesis.toml", "run", "http://127.0.0.1:\(port)/openapi.yaml",
                         "--max-examples", "100", "--workers", "2", "--seed", "20261123", "--no-color"]
        let environment = ProcessInfo.processInfo.environment.merging([
            "SCHEMATHESIS_HOOKS": "hooks", "PYTHONPATH": contract.path, "FOLLA_ADMIN_TOKEN": token,
        ]) { $1 }
        func schemathesis() async throws -> ExternalProcess.Result {
            try await ExternalProcess.run(Self.schemathesis, arguments, environment: environment,
                                          directory: contract.path, deadline: 1500)
        }
        var run = try await schemathesis()
        // Debian 12's Python 3.11 can fail, rarely and in threaded programs (two workers
        // here), inside `ast.parse` while Hypothesis describes a strategy ("SystemError: AST
        // constructor recursion depth mismatch", CPython gh-106905): a crash of the tool
        // while generating, not a finding about the server (seen once in a CI run, never in
        // the local runs of the same seed). One more run with the same seed settles it.
        if run.status != 0, (run.output + run.errors).contains("AST constructor recursion depth mismatch") {
            run = try await schemathesis()
        }
        let report = run.output + run.errors
        #expect(run.status == 0, "schemathesis found failures:\n\(Self.readable(report))")
        await server.stop()
        // It really ran: thousands of cases, every operation of the spec.
        let generated = report.firstMatch(of: /(\d+) generated/).flatMap { Int($0.1) } ?? 0
        #expect(generated >= 2000, "only \(generated) cases:\n\(report.suffix(4000))")
        let selected = report.firstMatch(of: /Selected: (\d+)\/(\d+)/).map { (Int($0.1) ?? 0, Int($0.2) ?? -1) }
        let tested = report.firstMatch(of: /Tested: (\d+)/).flatMap { Int($0.1) }
        #expect(selected != nil && selected?.0 == selected?.1 && tested == selected?.0 && (tested ?? 0) >= 23,
                "\(report.suffix(4000))")
    }

    /// The end of a report, each line cut to 400 characters: a failing case's curl command
    /// can be 20 kB on one line (a venue of a thousand points), and hid the failure's name.
    static func readable(_ report: String) -> String {
        String(report.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.count > 400 ? $0.prefix(400) + " …" : $0 }.joined(separator: "\n").suffix(20_000))
    }
}
