@testable import FollaAPI
import Testing

/// The access line's duration: milliseconds with two decimals, rounded half up (as
/// `String(format: "%.2f")` wrote it, except on exact binary ties such as 0.015 ms, which
/// it rounded down).
@Suite struct AccessLogMiddlewareTests {
    @Test(arguments: [
        (Duration.microseconds(12_345), "12.35"), (.milliseconds(5), "5.00"), (.microseconds(4), "0.00"),
        (.microseconds(5), "0.01"), (.microseconds(1_500_000), "1500.00"), (.nanoseconds(99_994_999), "99.99"),
        (.nanoseconds(99_995_000), "100.00"), (.zero, "0.00"),
    ])
    func millisecondsWithTwoDecimals(elapsed: Duration, text: String) {
        typealias Middleware = AccessLogMiddleware<FollaRequestContext>
        #expect(Middleware.milliseconds(elapsed) == text)
    }
}
