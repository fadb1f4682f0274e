import FollaCore
import FollaLoops
import Foundation

/// Plays a population against a server open-loop.
///
/// Requests are issued when they are due, whether or not earlier ones have answered, and
/// each latency is measured from the due time: if the server (or the client's connection
/// pool) makes requests queue, that wait is part of the latency. A slow server cannot
/// hide behind a generator that politely waits for it (no coordinated omission).
public struct LoadRunner: Sendable {
    public struct Progress: Sendable {
        public var elapsed: Double
        public var duration: Double
        public var livePhones: Int
        public var requestsPerSecond: Double
        public var p99ms: Double
        public var unexpected: Int
    }

    public let client: FollaClient
    public let book: LatencyBook
    public let truth: GroundTruth
    public var tick: Duration = .milliseconds(10)

    public init(client: FollaClient, book: LatencyBook = LatencyBook(), truth: GroundTruth = GroundTruth()) {
        self.client = client
        self.book = book
        self.truth = truth
    }

    /// Runs for the scenario's duration; returns the population as it ended.
    public func run(_ population: Population, progress: @Sendable (Progress) -> Void = { _ in }) async -> (Population, Double) {
        var population = population
        let duration = population.scenario.durationS
        let start = ContinuousClock.now
        let book = self.book, client = self.client, truth = self.truth
        var lastReport = 0.0, lastCount = 0
        let loopExecutor = EventLoopTaskExecutor(client.http.loop)
        // Discarding: a finished request's task is freed at once (a plain group keeps every
        // child until it is awaited, hundreds of thousands in a city-scale run).
        await withDiscardingTaskGroup { group in
            while true {
                let elapsed = Self.seconds(ContinuousClock.now - start)
                if elapsed >= duration { break }
                for (due, action) in population.advance(to: elapsed) {
                    book.recordLag(micros: UInt64(max(0, elapsed - due) * 1_000_000))
                    // On the client's event loop (this scheduling loop and its bookkeeping stay
                    // on Swift's pool): a request no longer crosses from a pool thread to the loop
                    // that writes it and back to a pool thread when answered (two wake-ups of
                    // another thread each). At 100 000 phones (90 s runs, alternating, session
                    // 33): the whole load on the loop took 0.056-0.059 ms of generator CPU per
                    // request against 0.061-0.067 on Swift's pool (three pairs); only these
                    // tasks there, as now, 0.052 / 0.053 against 0.056 / 0.054 (two pairs).
                    group.addTask(executorPreference: loopExecutor) {
                        let outcome: FollaClient.Outcome?
                        var failure: String?
                        do {
                            outcome = try await client.send(action, truth: truth, due: due)
                        } catch {
                            outcome = nil
                            failure = String(describing: type(of: error)) + ": " + String(String(describing: error).prefix(80))
                        }
                        let finished = Self.seconds(ContinuousClock.now - start)
                        book.record(endpoint: action.endpoint + (outcome?.hostile == true ? " (hostile)" : ""),
                                    micros: UInt64(max(0, finished - due) * 1_000_000), status: outcome?.status,
                                    error: failure, second: Int(due), expected: outcome?.expected ?? false)
                    }
                }
                if elapsed - lastReport >= 1 {
                    let snap = book.snapshot()
                    let count = snap.endpoints.values.reduce(0) { $0 + Int($1.totalCount) }
                    let recent = snap.perSecond[Int(elapsed) - 1]
                    progress(Progress(elapsed: elapsed, duration: duration,
                                      livePhones: truth.live(at: elapsed, ttl: 1200).certain.count,
                                      requestsPerSecond: Double(count - lastCount) / (elapsed - lastReport),
                                      p99ms: recent?.ms(99) ?? 0, unexpected: snap.unexpected))
                    lastReport = elapsed
                    lastCount = count
                }
                try? await Task.sleep(for: tick)
            }
        }
        return (population, Self.seconds(ContinuousClock.now - start))
    }

    static func seconds(_ d: Duration) -> Double {
        d / .seconds(1)
    }
}
