import FollaCore
import FollaServices
import Hummingbird
import Logging
import FollaStore
import NIOHTTP1

/// Turns every error escaping a handler into a problem response, so a client never sees
/// a bare status, an HTML page or a stack trace; logs what is the server's fault.
public struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            return problem.response()
        } catch let error as FieldError {
            return Problem.invalid(error).response()
        } catch let refusal as CheckInRefusal {
            return Problem.refused(refusal).response()
        } catch let limited as RateLimited {
            return Problem.rateLimited(limited).response()
        } catch let outage as DatabaseUnavailable {
            context.logger.debug("answered 503: the database is unavailable", metadata: ["reason": "\(outage.reason)"])
            return Problem.unavailable(outage).response()
        } catch let error as HTTPParserError {
            // A body that cannot be read (bad chunk size, short chunk, unknown transfer coding,
            // a body cut short): the client's fault, which any client can repeat at will, so
            // not an error line in our log.
            context.logger.debug("unreadable request", metadata: ["error": "\(error)"])
            return Problem.unreadable(error).response()
        } catch let error as HTTPError {
            return Self.problem(error.status, error.body).response()
        } catch let error as any HTTPResponseError {
            // (Hummingbird's own, such as a chunked body streaming past the limit.)
            return Self.problem(error.status, nil).response()
        } catch {
            context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            return Problem(.internalServerError, type: "internal", title: "Internal server error",
                           detail: "the server failed to answer; nothing was changed by this request unless it said so").response()
        }
    }

    /// The problem for an HTTP error from Hummingbird itself (not found, body too large, wrong
    /// method): the same types our own refusals use.
    ///
    /// - Parameters:
    ///   - status: the error's status.
    ///   - detail: its message, if it has one.
    static func problem(_ status: HTTPResponse.Status, _ detail: String?) -> Problem {
        switch status {
        case .notFound:
            return .notFound(detail ?? "no such resource")
        case .contentTooLarge:
            return .bodyTooLarge(detail ?? "the request body exceeds the limit")
        case .methodNotAllowed:
            return .methodNotAllowed("this resource does not support that method")
        default:
            return Problem(status, type: "http-\(status.code)", title: status.reasonPhrase, detail: detail ?? status.reasonPhrase)
        }
    }
}
