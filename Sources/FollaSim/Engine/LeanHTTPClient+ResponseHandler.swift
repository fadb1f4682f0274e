import NIOCore

extension LeanHTTPClient {
    /// Hands the bytes read on one connection to the client (on the loop).
    final class ResponseHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let client: LeanHTTPClient
        let connection: LeanHTTPClient.Connection

        init(client: LeanHTTPClient, connection: LeanHTTPClient.Connection) {
            self.client = client
            self.connection = connection
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = unwrapInboundIn(data)
            client.received(&bytes, on: connection)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            connection.error = error
            context.close(promise: nil)
        }
    }
}
