import CoreMetrics
import Dispatch
import HTTPTypes
import Hummingbird
import Synchronization

/// Counts every request and times it, under the names and labels of Hummingbird's
/// `MetricsMiddleware` (`ServerMetrics` renames them for Prometheus), but leaves the answer's
/// body as it is.
///
/// Hummingbird's middleware times up to the end of the body's write by wrapping the body in a
/// closure, and a body that is a closure is written head first, then body, then end, each a
/// `write(2)` of its own; a body that is a buffer goes out as one batched write. Measured on
/// dense groups answers (`radius=200`, 4 connections): two writes per answer with it, one
/// without. So the time recorded here for an answer of known length ends when it is ready to
/// be written; a stream (unknown length) is still timed and counted in progress until written.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    private let cache = Cache()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let active = cache.active(request.method)
        active.increment()
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            let metrics = cache.endpoint(context.endpointPath ?? "NotFound", request.method, status)
            metrics.counter.increment()
            metrics.errorCounter.increment()
            active.decrement()
            throw error
        }
        let metrics = cache.endpoint(context.endpointPath ?? "Unknown", request.method, response.status)
        guard response.body.contentLength == nil else {
            Self.answered(metrics, since: start, active: active)
            return response
        }
        // A body of unknown length is a stream (a wall's events): in progress, and timed,
        // until it has been written, as with Hummingbird's middleware.
        let body = response.body
        response.body = ResponseBody { writer in
            defer { Self.answered(metrics, since: start, active: active) }
            try await body.write(writer)
        }
        return response
    }

    /// Counts and times an answer, and takes it out of the requests in progress.
    private static func answered(_ metrics: Cache.Endpoint, since start: UInt64, active: Meter) {
        metrics.counter.increment()
        metrics.timer.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start))
        active.decrement()
    }

    /// The metric handles by method, and by route, method and status: made once each (a
    /// lookup in the metrics factory takes its lock and builds the labels every time).
    private final class Cache: Sendable {
        struct Endpoint: Sendable {
            let counter: Counter
            let timer: Timer
            let errorCounter: Counter
        }

        private struct Key: Hashable {
            let route: String
            let method: HTTPRequest.Method
            let status: Int
        }

        private let methods = Mutex<[HTTPRequest.Method: Meter]>([:])
        private let endpoints = Mutex<[Key: Endpoint]>([:])

        func active(_ method: HTTPRequest.Method) -> Meter {
            methods.withLock { m in
                if let meter = m[method] { return meter }
                let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.description)])
                m[method] = meter
                return meter
            }
        }

        func endpoint(_ route: String, _ method: HTTPRequest.Method, _ status: HTTPResponse.Status) -> Endpoint {
            endpoints.withLock { e in
                let key = Key(route: route, method: method, status: status.code)
                if let known = e[key] { return known }
                let labels = [("http.route", route), ("http.request.method", method.description),
                              ("http.response.status_code", status.code.description)]
                let made = Endpoint(
                    counter: Counter(label: "hb.requests", dimensions: labels),
                    timer: Timer(label: "http.server.request.duration", dimensions: labels, preferredDisplayUnit: .seconds),
                    errorCounter: Counter(label: "hb.request.errors", dimensions: [labels[0], labels[1], ("error.type", status.code.description)]))
                e[key] = made
                return made
            }
        }
    }
}
