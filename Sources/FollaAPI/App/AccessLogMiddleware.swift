import Hummingbird
import Logging

/// One log line per request, naming the route pattern rather than the concrete path:
/// paths can carry a device id (`DELETE /v1/devices/{device_id}`), which must never
/// reach a log.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        context.logger.info("request", metadata: [
            "method": .string(request.method.rawValue),
            "route": .string(context.endpointPath ?? "(no route)"),
            "status": .stringConvertible(response.status.code),
            "ms": .string(String(format: "%.2f", Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)),
        ])
        return response
    }
}
