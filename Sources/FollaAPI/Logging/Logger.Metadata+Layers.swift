import Logging

extension Logger.Metadata {
    /// A line's metadata as `StreamLogHandler` ranks its sources, lowest to highest: the
    /// logger's, the provider's, the line's own. Both of our handlers apply it (they keep the
    /// logger's metadata and the provider themselves).
    /// - Parameters:
    ///   - logger: the logger's metadata.
    ///   - provider: the handler's metadata provider, if any.
    ///   - line: the line's own metadata, if any.
    static func layered(_ logger: Logger.Metadata, provider: Logger.MetadataProvider?, line: Logger.Metadata?) -> Logger.Metadata {
        var merged = logger
        if let provided = provider?.get() { merged.merge(provided) { _, provided in provided } }
        if let line { merged.merge(line) { _, line in line } }
        return merged
    }
}
