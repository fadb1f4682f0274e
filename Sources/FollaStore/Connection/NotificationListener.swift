import FollaCore
import Logging
import PostgresNIO

/// Listens on one PostgreSQL notification channel on a connection of its own (a pooled
/// connection cannot hold a LISTEN), for as long as the task runs.
///
/// A connection that fails, or stops answering the heartbeat (`SELECT 1` every
/// `heartbeat`), is dropped and opened again after a pause. Notifications sent while no
/// connection listened are lost, so `received` is also called after every reconnection:
/// the receiver then treats everything as possibly changed.
public struct NotificationListener: Sendable {
    let configuration: PostgresConnection.Configuration
    let channel: String
    let heartbeat: Duration
    let logger: Logger

    /// - Parameters:
    ///   - client: the pool's configuration; the listener connects to the same server (the
    ///     primary: a hot standby cannot LISTEN).
    ///   - channel: the channel name (an SQL identifier of ours, never user input).
    ///   - heartbeat: how often the connection is checked; a dead one is replaced within about twice this.
    public init(client: PostgresClient.Configuration, channel: String, heartbeat: Duration = .seconds(2), logger: Logger) {
        var configuration = PostgresConnection.Configuration(client, connectTimeout: heartbeat)
        // Named, so that an operator (or a test) can find it in pg_stat_activity.
        configuration.options.additionalStartupParameters.append(("application_name", "folla listener \(channel)"))
        self.configuration = configuration
        self.channel = channel
        self.heartbeat = heartbeat
        self.logger = logger
    }

    /// Listens until cancelled.
    /// - Parameter received: called with each notification's payload, and with nil after
    ///   each (re)connection (anything may have changed meanwhile), one call at a time.
    public func run(_ received: @escaping @Sendable (_ payload: String?) async -> Void) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: channel) { notifications in
                    if failures > 0 { logger.notice("listening again", metadata: ["channel": "\(channel)"]) }
                    failures = 0
                    await received(nil)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await notification in notifications { await received(notification.payload) }
                            throw ListenerStopped()
                        }
                        group.addTask {
                            while true {
                                try await Task.sleep(for: heartbeat)
                                try await check(connection)
                            }
                        }
                        defer { group.cancelAll() }
                        try await group.next()
                    }
                }
            } catch {
                if Task.isCancelled { break }
                failures += 1
                if failures == 1 {
                    logger.warning("notification listener lost its connection; reconnecting",
                                   metadata: ["channel": "\(channel)", "error": "\(String(reflecting: error))"])
                }
            }
            try? await Task.sleep(for: .milliseconds(min(2000, 250 * failures)))
        }
    }

    /// `SELECT 1` within the heartbeat, on a task that is not waited for (a query on a
    /// connection whose server vanished may never return).
    private func check(_ connection: PostgresConnection) async throws {
        let logger = self.logger
        try await FirstResult<Void>().race({
            _ = try await connection.query("SELECT 1", logger: logger).collect()
        }, against: [FirstResult.after(heartbeat) { ListenerStopped() }])
    }
}

/// The notification stream ended, or the connection stopped answering.
struct ListenerStopped: Error {}
