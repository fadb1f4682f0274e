import Logging

/// swift-log's text handler (`StreamLogHandler`, to standard error, as swift-log's default)
/// with the logger's metadata kept here and handed over only with a line that is written.
///
/// Why: `StreamLogHandler` formats its metadata into a string again on every change, and
/// every request changes it twice (Hummingbird's request id, then ours in
/// `RequestIDMiddleware`): ~3 % of the server's CPU per check-in under load, with the log at
/// `error` and no line written. Lines read as before.
public struct DeferredMetadataLogHandler: LogHandler {
    private var inner: StreamLogHandler
    public var metadata: Logger.Metadata = [:]

    /// - Parameter label: the logger's label, printed on every line.
    public init(label: String) {
        inner = .standardError(label: label)
    }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        // The line's own metadata wins over the logger's, as in `StreamLogHandler`.
        event.metadata = metadata.merging(event.metadata ?? [:]) { _, line in line }
        inner.log(event: event)
    }
}
