import FollaCore
import Foundation
import Logging

/// swift-log's output as one JSON object a line (`--log-format json`), for log shippers.
///
/// `{"time":"…Z","level":"info","label":"folla","message":"request", …metadata}`: the
/// metadata's keys sit beside the fixed ones (a clashing key is prefixed with `meta.`);
/// nested metadata stays nested. Written by hand because none of the packages available
/// here ships a JSON line handler (swift-log's own handler writes text only). Through
/// `JSONWriter` rather than the answers' encoder: the four fixed keys lead every line (the
/// encoder sorts keys), and a line costs no `Encodable` boxing of the metadata.
public struct JSONLogHandler: LogHandler {
    /// What every copy of a logger shares, behind one reference, so that the handler sits
    /// in its logger's existential instead of a box copied whole on every metadata change
    /// (`DeferredMetadataLogHandler.Shared` says why).
    private final class Shared: Sendable {
        let label: String
        /// Takes a finished line (newline included) and whether it is urgent (a warning or worse).
        let write: @Sendable ([UInt8], Bool) -> Void
        let metadataProvider: Logger.MetadataProvider?

        init(label: String, write: @escaping @Sendable ([UInt8], Bool) -> Void, metadataProvider: Logger.MetadataProvider?) {
            self.label = label
            self.write = write
            self.metadataProvider = metadataProvider
        }
    }

    private var shared: Shared
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info

    /// - Parameters:
    ///   - label: the logger's label (`label` in every line).
    ///   - output: where lines go (standard error, in batches; a warning or worse at once).
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil, output: LogOutput = .standardError) {
        shared = Shared(label: label, write: { line, urgent in output.write(line, urgent: urgent) }, metadataProvider: metadataProvider)
    }

    /// - Parameters:
    ///   - label: the logger's label (`label` in every line).
    ///   - write: where each finished line (newline included) goes, at once.
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil,
                write: @escaping @Sendable ([UInt8]) -> Void) {
        shared = Shared(label: label, write: { line, _ in write(line) }, metadataProvider: metadataProvider)
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { shared.metadataProvider }
        set { shared = Shared(label: shared.label, write: shared.write, metadataProvider: newValue) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = Logger.Metadata.layered(metadata, provider: shared.metadataProvider, line: event.metadata)
        shared.write(Self.line(time: Date(), level: event.level, label: shared.label, message: "\(event.message)", metadata: merged),
                     LogOutput.isUrgent(event.level))
    }

    static let fixedKeys: Set<String> = ["time", "level", "label", "message"]

    /// One record as a JSON line; metadata keys in sorted order, so lines compare stably.
    static func line(time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.object { o in
            o.member("time") { $0.string(time.iso8601(milliseconds: true)) }
            o.member("level") { $0.string(level.rawValue) }
            o.member("label") { $0.string(label) }
            o.member("message") { $0.string(message) }
            for key in metadata.keys.sorted() {
                o.member(escaping: fixedKeys.contains(key) ? "meta." + key : key) { value(metadata[key]!, &$0) }
            }
        }
        return w.bytes + [UInt8(ascii: "\n")]
    }

    private static func value(_ v: Logger.Metadata.Value, _ w: inout JSONWriter) {
        switch v {
        case .string(let s): w.string(s)
        case .stringConvertible(let c): w.string(c.description)
        case .array(let items): w.array(items) { w, item in value(item, &w) }
        case .dictionary(let d):
            w.object { o in
                for key in d.keys.sorted() { o.member(escaping: key) { value(d[key]!, &$0) } }
            }
        }
    }
}
