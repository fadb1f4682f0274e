import Synchronization

/// How many wall event streams may be open at once, in all and from one client network.
///
/// Why: a stream holds its connection for minutes (`--wall-stream-seconds`), outside the idle
/// timeout, and costs ~50 kB of memory. One client opening 10 000 of them took every
/// connection the server would accept, and `/healthz` went unanswered (outside probe,
/// session 35). Venue screens are few per network; past its share a network's next stream is
/// a 429, and past the total (half the connections by default) a 503, both at once.
final class StreamSlots: Sendable {
    /// Streams open at once from one client network (`FollaRequestContext.clientNetwork`: a
    /// /24 or a /48, so that one subscriber's many addresses count as one); 0: no share
    /// (behind a proxy every client is the proxy's network).
    let perNetwork: Int
    /// Streams open at once in all.
    let total: Int
    private let open = Mutex<(byNetwork: [String: Int], all: Int)>(([:], 0))

    /// - Parameters:
    ///   - perNetwork: streams one client network may hold at once; 0 for no share.
    ///   - total: streams the server holds at once.
    init(perNetwork: Int, total: Int) {
        self.perNetwork = perNetwork
        self.total = total
    }

    /// Why a stream was not opened.
    enum Refusal: Error, Equatable {
        case networkFull, serverFull
    }

    /// A slot for one stream of `network`, given back when the slot is released (its last
    /// reference dropped: the stream ended, or its answer was never written, as for HEAD).
    /// - Throws: `Refusal` when the network or the server holds as many as it may.
    func take(for network: String) throws(Refusal) -> Slot {
        let refusal = open.withLock { o -> Refusal? in
            guard o.all < total else { return .serverFull }
            guard perNetwork == 0 || o.byNetwork[network, default: 0] < perNetwork else { return .networkFull }
            o.all += 1
            o.byNetwork[network, default: 0] += 1
            return nil
        }
        if let refusal { throw refusal }
        return Slot(slots: self, network: network)
    }

    /// Streams open now (for tests).
    var openCount: Int { open.withLock { $0.all } }

    fileprivate func giveBack(_ network: String) {
        open.withLock { o in
            o.all -= 1
            let left = o.byNetwork[network, default: 1] - 1
            o.byNetwork[network] = left > 0 ? left : nil
        }
    }

    /// One open stream's place; released when the last reference goes.
    final class Slot: Sendable {
        private let slots: StreamSlots
        private let network: String

        fileprivate init(slots: StreamSlots, network: String) {
            self.slots = slots
            self.network = network
        }

        deinit { slots.giveBack(network) }
    }
}
