@testable import FollaSim
import Testing

/// The simulator's reading of the server's `/metrics`: the three counter families it needs,
/// and what changed between two scrapes.
@Suite struct ServerCountsTests {
    static let before = """
        # TYPE folla_http_requests_total counter
        folla_http_requests_total{route="/v1/checkins",method="POST",status="200"} 10
        folla_http_requests_total{route="/v1/checkins",method="POST",status="403"} 2
        # TYPE folla_http_request_duration_seconds histogram
        folla_http_request_duration_seconds_bucket{route="/v1/checkins",method="POST",status="200",le="+Inf"} 10
        folla_checkins_total{outcome="joined"} 7
        folla_live_places 3.0
        """
    static let after = """
        folla_http_requests_total{route="/v1/checkins",method="POST",status="200"} 25
        folla_http_requests_total{route="/v1/checkins",method="POST",status="403"} 2
        folla_http_requests_total{route="/v1/groups",method="GET",status="200"} 4
        folla_checkins_total{outcome="joined"} 9
        folla_checkins_total{outcome="founded"} 1
        folla_refusals_total{reason="teleport"} 1
        """

    @Test func readsTheCountersAndTheirChange() {
        let a = ServerCounts(exposition: Self.before), b = ServerCounts(exposition: Self.after)
        #expect(a.requests == ["/v1/checkins": 12])
        #expect(a.checkIns == ["joined": 7])
        let d = b.since(a)
        #expect(d.requests == ["/v1/checkins": 15, "/v1/groups": 4])
        #expect(d.totalRequests == 19)
        #expect(d.checkIns == ["joined": 2, "founded": 1])
        #expect(d.refusals == ["teleport": 1])
    }
}
