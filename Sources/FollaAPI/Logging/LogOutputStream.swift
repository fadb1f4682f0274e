/// A `TextOutputStream` over a `LogOutput`, for swift-log's `StreamLogHandler` (which
/// writes each line with one `write(_:)`). Every line is queued; the handler flushes after
/// an urgent one.
struct LogOutputStream: TextOutputStream, Sendable {
    let output: LogOutput

    func write(_ string: String) {
        output.write(string.utf8, urgent: false)
    }
}
