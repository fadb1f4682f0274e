import FollaTestSupport
import Foundation
import Testing

/// The tests' program runner ends at its deadline even when the program's own children hold
/// its output open: a shell pipeline used to keep the test waiting for the grandchildren
/// after its shell had been terminated, and a program started by this process inherited
/// SIGTERM ignored (the in-process servers' signal handling), so terminating it did nothing.
@Suite struct ExternalProcessTests {
    @Test func aPipelineIsStoppedWholeAtTheDeadline() async throws {
        let result = try await ExternalProcess.run("/bin/sh", ["-c", "sleep 37.25 | cat; echo never"], deadline: 1)
        #expect(result.status == 124, "timeout's status for a program out of time: \(result.status)")
        #expect(!result.output.contains("never"))
        let left = try await ExternalProcess.run("/usr/bin/pgrep", ["-f", "sleep 37[.]25"], deadline: 10)
        #expect(left.output.isEmpty, "still running: \(left.output)")
    }

    @Test func outputErrorsAndStatusComeBack() async throws {
        let result = try await ExternalProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(result.status == 3)
        #expect(result.output == "out\n")
        #expect(result.errors == "err\n")
    }

    @Test func environmentAndDirectoryAreTheGivenOnes() async throws {
        let result = try await ExternalProcess.run("/bin/sh", ["-c", "pwd; echo \"$FOLLA_PROBE\"; echo \"${HOME:-unset}\""],
                                                   environment: ["FOLLA_PROBE": "given", "PATH": "/usr/bin:/bin"],
                                                   directory: "/usr/share")
        #expect(result.output == "/usr/share\ngiven\nunset\n", "\(result.output)")
    }

    /// A background program's output reaches its file, and SIGTERM ends it (the program
    /// inherits this process's ignored SIGTERM unless `env --default-signal` resets it: then
    /// only the SIGKILL after the wait would end it, status 9).
    @Test func aRunningProgramLogsAndEndsOnSIGTERM() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("running-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let program = try RunningProgram("/bin/sh", ["-c", "echo started; echo oops >&2; exec sleep 37.5"], outputFile: file)
        let end = ContinuousClock.now + .seconds(20)
        while !((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").contains("oops") && ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(program.isRunning)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "started\noops\n")
        #expect(await program.stop(within: 10) == SIGTERM)
        #expect(!program.isRunning)
    }
}
