@testable import FollaAPI
import FollaTestSupport
import Foundation
import Logging
import Synchronization
import Testing

/// The log's batched output: lines below `warning` wait for the writer thread (or an urgent
/// line), arrive whole and in order; a warning or worse is written at once, with what came
/// before it. The flush at exit is the server tests' (`TextLogTests`, `JSONLogTests`: they
/// read the access line after the server has stopped).
@Suite struct LogOutputTests {
    /// A temporary file the output writes to (a pipe would fill up and block the writer
    /// while the test waits for it); `read()` gives what has been written so far.
    final class Capture: Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("folla-logoutput-\(UUID().uuidString)").path
        let descriptor: Int32

        init() {
            descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        }

        deinit {
            close(descriptor)
            unlink(path)
        }

        /// Everything written so far.
        func read() -> String {
            (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        }
    }

    @Test func aLineWaitsUntilAnUrgentOneTakesItAlong() {
        let capture = Capture()
        let output = LogOutput(descriptor: capture.descriptor, interval: .seconds(60))
        output.write(Array("first\n".utf8), urgent: false)
        #expect(capture.read() == "")
        output.write(Array("second\n".utf8), urgent: true)
        #expect(capture.read() == "first\nsecond\n")
    }

    @Test func aLineIsWrittenWithinTheInterval() async throws {
        let capture = Capture()
        let output = LogOutput(descriptor: capture.descriptor, interval: .milliseconds(20))
        output.write(Array("quiet\n".utf8), urgent: false)
        let end = ContinuousClock.now + .seconds(5)
        while capture.read().isEmpty && ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(10)) }
        #expect(capture.read() == "quiet\n")
    }

    @Test func linesFromManyWritersArriveWholeAndInOrder() async {
        let capture = Capture()
        let output = LogOutput(descriptor: capture.descriptor, interval: .milliseconds(1))
        let writers = 4, lines = 500
        await withTaskGroup(of: Void.self) { group in
            for w in 0..<writers {
                group.addTask {
                    for i in 0..<lines { output.write(Array("w\(w) line \(i) \(String(repeating: "x", count: i % 90))\n".utf8), urgent: false) }
                }
            }
        }
        output.flush()
        let got = capture.read().split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(got.count == writers * lines)
        for w in 0..<writers {
            let mine = got.filter { $0.hasPrefix("w\(w) ") }
            #expect(mine == (0..<lines).map { "w\(w) line \($0) \(String(repeating: "x", count: $0 % 90))"[...] })
        }
    }

    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    @Test func aReaderThatStopsReadingLosesLinesButNeverStallsTheWriter() async throws {
        let pipe = Pipe.closedOnExec()  // nobody reads it until the end
        let output = LogOutput(descriptor: pipe.fileHandleForWriting.fileDescriptor, interval: .seconds(60))
        let line = Array((String(repeating: "x", count: 1023) + "\n").utf8)
        // 5 MB: the pipe takes 64 kB, the queue 4 MB, the rest is dropped and counted.
        for _ in 0..<5_000 { output.write(line, urgent: false) }
        let done = Flag()
        let start = ContinuousClock.now
        let writer = Thread { output.flush(); done.value.store(true, ordering: .releasing) }
        writer.start()
        while !done.value.load(ordering: .acquiring) && ContinuousClock.now - start < .seconds(30) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let finished = done.value.load(ordering: .acquiring)
        #expect(finished, "flush() waited for a reader that never came")
        // Whole lines reached the pipe; the next batch names what was dropped.
        output.write(Array("after\n".utf8), urgent: false)
        // Read on a thread of its own, started before the flush: a task could wait past the
        // writer's 1 s patience for a thread of the cooperative pool on a busy box (other
        // suites run beside this one), and "after" was then dropped.
        let reading = pipe.fileHandleForReading
        let drained = Mutex<Data?>(nil)
        let reader = Thread { let data = (try? reading.readToEnd()) ?? Data(); drained.withLock { $0 = data } }
        reader.start()
        output.flush()
        try pipe.fileHandleForWriting.close()
        while drained.withLock({ $0 == nil }) { try await Task.sleep(for: .milliseconds(10)) }
        let text = String(decoding: drained.withLock { $0 ?? Data() }, as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("(") && $0.contains("log lines dropped") })
        #expect(lines.last == "after")
        // A line the stall cut short is ended there: nothing is glued to it.
        #expect(lines.allSatisfy { ($0.count <= 1023 && $0.allSatisfy { $0 == "x" }) || $0.hasPrefix("(") || $0 == "after" },
                "\(lines.filter { $0.count != 1023 }.map { "\($0.count): \($0.prefix(80))" })")
    }

    @Test func theHandlersWriteAWarningAtOnceWithTheLinesBeforeIt() {
        for json in [false, true] {
            let capture = Capture()
            let output = LogOutput(descriptor: capture.descriptor, interval: .seconds(60))
            let logger = Logger(label: "folla.test") { label in
                json ? JSONLogHandler(label: label, output: output) as any LogHandler
                    : DeferredMetadataLogHandler(label: label, output: output)
            }
            logger.info("request")
            #expect(capture.read() == "", "json: \(json)")
            logger.warning("trouble")
            let lines = capture.read().split(separator: "\n")
            #expect(lines.count == 2, "json: \(json)")
            #expect(lines.first?.contains("request") == true && lines.last?.contains("trouble") == true, "json: \(json)")
        }
    }
}
