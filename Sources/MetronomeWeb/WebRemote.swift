import Glibc
import MetronomeLive
import MetronomeService
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The web remote of `metronome serve --http`: an HTTP/1.1 server on one event-loop thread that serves one page (in
/// the binary: `WebPage`) and takes WebSockets from it. A page's commands go through the service's own core
/// (`OSCService.perform(_:from:)`, the OSC address space's handlers), so the page can do what OSC can and nothing
/// more; every change of the service's state reaches every page open within `WebHub.pollInterval` and a frame's
/// transit; every beat reaches them ahead of its time, with the host time it is heard at.
///
/// Bounds: a request head of `WebAccess.maximumHeadBytes`, a WebSocket message of `maximumFrameBytes`,
/// `maximumConnections` connections at once (more are closed at once and counted), a whole request within
/// `requestTimeout` (`WebRequestDeadline`). Who may connect is `WebAccess`'s decision.
///
/// Threads: create and `stop()` from a control thread; `publish(_:)` from the session's beat callback; the rest from
/// any thread.
public final class WebRemote: Sendable {
    /// Where it listens (the port the system chose for port 0).
    public let address: WebAddress
    /// The token requests need, if any.
    public var token: String? { hub.access.token }
    let hub: WebHub
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel

    /// The largest WebSocket message a page may send, in bytes (a command is a few dozen).
    public static let maximumFrameBytes = 4096
    /// The most connections open at once (pages and requests).
    public static let defaultMaximumConnections = 32
    /// How long a connection has to send a whole request before it is answered 408 and closed: a phone on a slow
    /// network sends its few hundred bytes in one round trip; a client that holds a place longer is not a page.
    public static let defaultRequestTimeout: Duration = .seconds(10)

    /// Binds and starts serving.
    /// - Parameters:
    ///   - address: where to listen.
    ///   - token: the token every request must carry, or nil for none (only sensible on a loopback address).
    ///   - service: the service the pages drive.
    ///   - patterns: the patterns a page may load (default: none).
    ///   - maximumConnections: the most connections open at once.
    ///   - requestTimeout: how long a connection has to send a whole request (then 408, and it is closed).
    /// - Throws: `WebRemoteError.bind` when the address cannot be bound (a port in use).
    public init(
        address: WebAddress, token: String?, service: OSCService, patterns: WebPatterns = WebPatterns(),
        maximumConnections: Int = WebRemote.defaultMaximumConnections,
        requestTimeout: Duration = WebRemote.defaultRequestTimeout
    ) throws(WebRemoteError) {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (seconds, attoseconds) = requestTimeout.components
        let hub = WebHub(
            service: service, access: WebAccess(token: token, loopbackBind: address.isLoopback), patterns: patterns,
            loop: group.next(), maximumConnections: maximumConnections,
            requestTimeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        self.hub = hub
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 64 * 1024))
            .childChannelInitializer { channel in WebRemote.configure(channel, hub: hub) }
        do {
            listener = try bootstrap.bind(host: address.host, port: address.port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            // An IOError's description names NIO's own function; the system's message is the part a person needs.
            let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            throw .bind(address, reason: reason)
        }
        self.address = WebAddress(host: address.host, port: listener.localAddress?.port ?? address.port)
    }

    /// Sets up a new connection as the server does each one it accepts: refused at once beyond the limit (counted),
    /// else NIO's HTTP/1.1 pipeline with its error handling and the decoder's limits, the WebSocket upgrade, and the
    /// remote's handlers. The fuzzing harness (`Fuzz/web`) gives it an `EmbeddedChannel`, so what it checks is this
    /// very pipeline.
    /// - Parameters:
    ///   - channel: a new connection, not yet active.
    ///   - hub: the remote's shared state.
    /// - Returns: a future that completes when the handlers are in place.
    package static func configure(_ channel: any Channel, hub: WebHub) -> EventLoopFuture<Void> {
        guard hub.admit() else {
            channel.close(promise: nil)
            return channel.eventLoop.makeSucceededVoidFuture()
        }
        channel.closeFuture.whenComplete { _ in hub.release() }
        return channel.eventLoop.makeCompletedFuture {
            let deadline = WebRequestDeadline(hub: hub)
            try channel.pipeline.syncOperations.addHandler(deadline, position: .first)
            let upgrader = NIOWebSocketServerUpgrader(
                maxFrameSize: WebRemote.maximumFrameBytes, automaticErrorHandling: true,
                shouldUpgrade: { channel, head in
                    let allowed = hub.access.check(WebAccess.Request(head)) == .socket
                    return channel.eventLoop.makeSucceededFuture(allowed ? HTTPHeaders() : nil)
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers([
                            WebSocketFrameCheck(),
                            NIOWebSocketFrameAggregator(
                                minNonFinalFragmentSize: 1, maxAccumulatedFrameCount: 16,
                                maxAccumulatedFrameSize: WebRemote.maximumFrameBytes),
                            WebSocketPage(hub: hub),
                        ])
                    }
                })
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = WebAccess.maximumHeadBytes
            limits.maxHeaderListSize = WebAccess.maximumHeadBytes
            limits.maxHeaderFieldCount = 100
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withServerUpgrade: (
                    upgraders: [upgrader],
                    completionHandler: { context in
                        context.pipeline.removeHandler(name: WebHTTPHandler.name, promise: nil)
                    }
                ),
                withErrorHandling: true, withOutboundHeaderValidation: true, withEncoderConfiguration: .init(),
                withDecoderLimitConfiguration: limits)
            try channel.pipeline.syncOperations.addHandler(
                WebHTTPHandler(hub: hub, deadline: deadline), name: WebHTTPHandler.name)
        }
    }

    /// The URL a browser opens, the token included (`http://HOST:PORT/?token=…`); for an address that listens on
    /// every interface (`0.0.0.0`, `::`), one per address of this machine's up interfaces, loopback last.
    public var urls: [String] {
        let query = token.map { "?token=\($0)" } ?? ""
        var hosts = [address.host]
        if address.host == "0.0.0.0" || address.host == "::" {
            let devices = (try? System.enumerateDevices()) ?? []
            let found = devices.compactMap { device -> String? in
                guard let ip = device.address?.ipAddress else { return nil }
                if address.host == "0.0.0.0", device.address?.protocol != .inet { return nil }
                if ip.hasPrefix("fe80") { return nil }
                return ip
            }
            hosts = found.filter { !WebAddress.isLoopback($0) } + found.filter { WebAddress.isLoopback($0) }
        }
        return hosts.map { "http://\(WebAddress(host: $0, port: address.port))/\(query)" }
    }

    /// Sends a beat to every page. Call from the session's beat callback.
    public func publish(_ beat: BeatEvent) { hub.publish(beat) }

    /// What was counted since the start. Any thread.
    public var counts: WebCounts { hub.counts.withLock { $0 } }

    /// Connections open now. Any thread.
    public var openConnections: Int { hub.openConnections }

    /// Stops listening, closes every connection and the event loop. Call once, from a control thread.
    public func stop() {
        try? listener.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// Why a web remote could not start.
public enum WebRemoteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The address could not be bound (in use, or not this machine's).
    case bind(WebAddress, reason: String)

    /// One line a person can act on.
    public var description: String {
        switch self {
        case .bind(let address, let reason): "cannot listen on TCP \(address): \(reason)"
        }
    }
}
