import Foundation
import Histogram
import Synchronization

/// Every response's latency, by endpoint, in HDR histograms (microseconds), plus
/// statuses, errors and per-second series for the report (all endpoints together, and
/// each endpoint on its own, so the report can draw one line per endpoint). Latency is measured from when
/// the request was *due*, not when it was sent (see `LoadRunner`).
public final class LatencyBook: Sendable {
    public struct Snapshot: Sendable {
        public var endpoints: [String: Histogram<UInt64>]
        public var statuses: [String: [Int: Int]]
        public var errors: [String: Int]
        public var perSecond: [Int: Histogram<UInt64>]
        /// Endpoint → second → latencies, at two significant digits (see `seriesHistogram`).
        public var perEndpointSecond: [String: [Int: Histogram<UInt64>]]
        public var dispatchLag: Histogram<UInt64>
        public var unexpected: Int
    }

    private let state = Mutex(Snapshot(endpoints: [:], statuses: [:], errors: [:], perSecond: [:],
                                       perEndpointSecond: [:], dispatchLag: LatencyBook.histogram(), unexpected: 0))

    public init() {}

    static func histogram() -> Histogram<UInt64> {
        Histogram(lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .three)
    }

    /// For the endpoint × second series: 1 % resolution is plenty for a chart, and at three
    /// digits each histogram is ~150 KB (6 endpoints × 120 s would hold ~100 MB); at two, ~21 KB.
    static func seriesHistogram() -> Histogram<UInt64> {
        Histogram(lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .two)
    }

    public func record(endpoint: String, micros: UInt64, status: Int?, error: String?, second: Int, expected: Bool) {
        state.withLock { s in
            _ = s.endpoints[endpoint, default: Self.histogram()].record(max(1, micros))
            _ = s.perSecond[second, default: Self.histogram()].record(max(1, micros))
            _ = s.perEndpointSecond[endpoint, default: [:]][second, default: Self.seriesHistogram()].record(max(1, micros))
            if let status { s.statuses[endpoint, default: [:]][status, default: 0] += 1 }
            if let error { s.errors["\(endpoint): \(error)", default: 0] += 1 }
            if !expected { s.unexpected += 1 }
        }
    }

    public func recordLag(micros: UInt64) {
        state.withLock { _ = $0.dispatchLag.record(max(1, micros)) }
    }

    public func snapshot() -> Snapshot { state.withLock { $0 } }
}

extension Histogram where Count == UInt64 {
    /// Milliseconds at a percentile.
    public func ms(_ p: Double) -> Double { Double(valueAtPercentile(p)) / 1000 }
}
