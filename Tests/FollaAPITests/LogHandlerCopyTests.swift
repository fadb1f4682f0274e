@testable import FollaAPI
import Foundation
import Logging
import Testing

/// The two log handlers are copied with every request's logger (its metadata changes twice
/// per request): each must fit in the logger's existential (three words), so that a copy is
/// no box of its own, and a copy's metadata, level and provider must stay its own.
@Suite struct LogHandlerCopyTests {
    @Test func eachHandlerFitsInItsLoggersExistential() {
        let inline = 3 * MemoryLayout<Int>.size
        #expect(MemoryLayout<DeferredMetadataLogHandler>.size <= inline)
        #expect(MemoryLayout<JSONLogHandler>.size <= inline)
    }

    @Test func aCopysMetadataLevelAndProviderAreItsOwn() {
        for json in [false, true] {
            let capture = LogOutputTests.Capture()
            let output = LogOutput(descriptor: capture.descriptor, interval: .seconds(60))
            var first = Logger(label: "folla.test") { label in
                json ? JSONLogHandler(label: label, output: output) as any LogHandler
                    : DeferredMetadataLogHandler(label: label, output: output)
            }
            first[metadataKey: "shared"] = "both"
            var second = first
            second[metadataKey: "request_id"] = "second-only"
            second.handler.metadataProvider = Logger.MetadataProvider { ["provided": "second-only"] }
            second.logLevel = .error
            first.warning("from-first")
            second.warning("dropped")  // below the copy's level
            second.error("from-second")
            let lines = capture.read().split(separator: "\n")
            #expect(lines.count == 2, "json: \(json): \(lines)")
            let (a, b) = (String(lines.first ?? ""), String(lines.last ?? ""))
            #expect(a.contains("from-first") && a.contains("both") && !a.contains("second-only"), "json: \(json): \(a)")
            #expect(b.contains("from-second") && b.contains("both") && b.contains("request_id") && b.contains("provided"),
                    "json: \(json): \(b)")
        }
    }
}
