import Foundation

extension ServerCounts {
    /// The server's account summed over several instances (behind a balancer, one
    /// instance's `/metrics` counts only what it answered).
    /// - Parameters:
    ///   - instances: the instances' base URLs; nil scrapes `http`'s server.
    ///   - http: the run's client, for the single-server case.
    ///   - adminToken: `/metrics` needs it; nil gives nil.
    /// - Returns: nil when any instance could not be read (a partial sum would undercount).
    public static func scrape(_ instances: [String]?, via http: LeanHTTPClient, adminToken: String?) async -> ServerCounts? {
        guard let instances, !instances.isEmpty else {
            return await FollaClient(http: http, phones: []).serverCounts(adminToken: adminToken)
        }
        var total = ServerCounts()
        for base in instances {
            guard let client = try? LeanHTTPClient(base: base, connections: 1) else { return nil }
            let counts = await FollaClient(http: client, phones: []).serverCounts(adminToken: adminToken)
            try? await client.shutdown()
            guard let counts else { return nil }
            total.requests.merge(counts.requests, uniquingKeysWith: +)
            total.checkIns.merge(counts.checkIns, uniquingKeysWith: +)
            total.refusals.merge(counts.refusals, uniquingKeysWith: +)
        }
        return total
    }
}
