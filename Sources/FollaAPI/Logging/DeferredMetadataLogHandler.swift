#if canImport(Glibc)
import Glibc
#endif
import Logging

/// swift-log's text handler (`StreamLogHandler`, to standard error, as swift-log's default)
/// with the logger's metadata kept here and handed over only with a line that is written.
///
/// Why: `StreamLogHandler` formats its metadata into a string again on every change, and
/// every request changes it twice (Hummingbird's request id, then ours in
/// `RequestIDMiddleware`): ~3 % of the server's CPU per check-in under load, with the log at
/// `error` and no line written. Lines read as before.
///
/// Lines go to a `LogOutput` (standard error, in batches; a warning or worse at once).
public struct DeferredMetadataLogHandler: LogHandler {
    /// What every copy of a logger shares, behind one reference.
    ///
    /// Why: a `Logger` holds its handler as an existential, and every request changes its
    /// logger's metadata twice (Hummingbird's request id, then ours). A handler wider than
    /// three words lives in a box of its own, copied whole on each change: an allocation and
    /// a retain of every field, the shared ones contended between the event loops. This
    /// handler is three words (this, the metadata, the level) and sits in the existential
    /// itself. Measured on dense groups answers side by side: ~1.3 % less server CPU.
    private final class Shared: Sendable {
        let inner: StreamLogHandler
        let output: LogOutput
        let metadataProvider: Logger.MetadataProvider?

        init(inner: StreamLogHandler, output: LogOutput, metadataProvider: Logger.MetadataProvider?) {
            self.inner = inner
            self.output = output
            self.metadataProvider = metadataProvider
        }
    }

    private var shared: Shared
    public var metadata: Logger.Metadata = [:]
    /// Checked by `Logger` before it calls `log(event:)`, never by the inner handler.
    public var logLevel: Logger.Level = .info

    /// - Parameters:
    ///   - label: the logger's label, printed on every line.
    ///   - output: where lines go.
    public init(label: String, output: LogOutput = .standardError) {
        shared = Shared(inner: StreamLogHandler(label: label, stream: LogOutputStream(output: output), metadataProvider: nil),
                        output: output, metadataProvider: nil)
    }

    /// Names the system's zone in `TZ` when it is unset, so that it is read once.
    ///
    /// Why: `StreamLogHandler` stamps each line with `localtime(3)`, and with `TZ` unset
    /// glibc stats `/etc/localtime` on every call to see whether it changed: a system call per
    /// access line, ~1.5 % of the server's CPU on a dense groups answer. Lines keep the same
    /// zone (a change of the system's zone shows after a restart). Call it before other
    /// threads read the environment: `setenv` is not safe beside them.
    public static func readTimeZoneOnce() {
        #if canImport(Glibc)  // glibc's behaviour; elsewhere nothing to do
        if getenv("TZ") == nil { setenv("TZ", ":/etc/localtime", 0) }
        #endif
    }

    /// Applied here, not by the inner handler: its values rank between the logger's and
    /// the line's, as in `StreamLogHandler`.
    public var metadataProvider: Logger.MetadataProvider? {
        get { shared.metadataProvider }
        set { shared = Shared(inner: shared.inner, output: shared.output, metadataProvider: newValue) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        event.metadata = .layered(metadata, provider: shared.metadataProvider, line: event.metadata)
        shared.inner.log(event: event)
        if LogOutput.isUrgent(event.level) { shared.output.flush() }
    }
}
