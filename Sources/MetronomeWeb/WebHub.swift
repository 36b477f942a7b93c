import MetronomeLive
import MetronomeModel
import MetronomeOSC
import MetronomeService
import NIOCore
import NIOWebSocket

/// What every connection of one web remote shares: the service it drives, the checks, the pages open, the counters,
/// and the push of state and beats to the pages.
///
/// Threads: the connections' handlers call it on the remote's one event loop; `publish(_:)` and the counters from any
/// thread. Pages are registered and the state is pushed on the event loop only, so the push task is started and
/// cancelled there without a race.
package final class WebHub: Sendable {
    /// The service the pages' commands go to.
    let service: OSCService
    /// The checks every request goes through.
    let access: WebAccess
    /// The patterns a page may load.
    let patterns: WebPatterns
    /// The remote's event loop (one thread: every connection is on it).
    let loop: any EventLoop
    /// The pages' WebSocket channels, by their identity.
    private let pages = Locked<[ObjectIdentifier: any Channel]>([:])
    /// The state last pushed, and the task that polls it while a page is open.
    private let push = Locked<(text: String, task: RepeatedTask?)>(("", nil))
    /// Open connections (HTTP and WebSocket).
    private let open = Locked<Int>(0)
    /// What was counted.
    package let counts = Locked<WebCounts>(WebCounts())
    /// The most connections open at once; more are closed at once and counted.
    let maximumConnections: Int
    /// How long a connection has to send a whole request (`WebRequestDeadline`).
    package let requestTimeout: TimeAmount

    /// How often the state is compared with the last pushed while a page is open: a change made anywhere (a page,
    /// the terminal, OSC, the map itself) reaches the pages within this and a frame's transit.
    static let pollInterval: TimeAmount = .milliseconds(20)
    /// Where a page's commands say they come from (no command a page may send replies).
    static let sender = OSCEndpoint.loopback(port: 0)

    /// A hub for one remote.
    /// - Parameters:
    ///   - service: the service the pages drive.
    ///   - access: the checks every request goes through.
    ///   - patterns: the patterns a page may load.
    ///   - loop: the event loop every connection is on.
    ///   - maximumConnections: the most connections open at once.
    ///   - requestTimeout: how long a connection has to send a whole request.
    package init(
        service: OSCService, access: WebAccess, patterns: WebPatterns, loop: any EventLoop, maximumConnections: Int,
        requestTimeout: TimeAmount = .seconds(10)
    ) {
        self.requestTimeout = requestTimeout
        self.service = service
        self.access = access
        self.patterns = patterns
        self.loop = loop
        self.maximumConnections = maximumConnections
    }

    // MARK: Connections

    /// Takes a new connection, or refuses it (counted) when `maximumConnections` are open.
    func admit() -> Bool {
        let admitted = open.withLock { count in
            guard count < maximumConnections else { return false }
            count += 1
            return true
        }
        counts.withLock { admitted ? ($0.connections += 1) : ($0.refusedConnections += 1) }
        return admitted
    }

    /// A connection taken by `admit()` closed.
    func release() { open.withLock { $0 -= 1 } }

    /// Connections open now.
    package var openConnections: Int { open.withLock { $0 } }

    // MARK: Pages

    /// A page's WebSocket opened: it gets the state at once, then every change and every beat. On the event loop.
    func opened(_ channel: any Channel) {
        let first = pages.withLock { pages in
            pages[ObjectIdentifier(channel)] = channel
            return pages.count == 1
        }
        counts.withLock { $0.pages += 1 }
        let text = WebMessages.state(service.state, patterns: patterns)
        if first {
            let task = loop.scheduleRepeatedTask(initialDelay: WebHub.pollInterval, delay: WebHub.pollInterval) {
                [self] task in
                pushState(task)
            }
            push.withLock { $0 = (text, task) }
        }
        send(text, to: channel)
    }

    /// Pages open now. Any thread.
    package var openPages: Int { pages.withLock { $0.count } }

    /// A page's WebSocket closed. On the event loop.
    func closed(_ channel: any Channel) {
        pages.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Pushes the state to every page when it differs from the last pushed; with no page left, stops polling. On the
    /// event loop.
    private func pushState(_ task: RepeatedTask) {
        let channels = pages.withLock { Array($0.values) }
        guard !channels.isEmpty else {
            task.cancel()
            push.withLock { $0 = ("", nil) }
            return
        }
        let text = WebMessages.state(service.state, patterns: patterns)
        let changed = push.withLock { push in
            guard push.text != text else { return false }
            push.text = text
            return true
        }
        if changed { for channel in channels { send(text, to: channel) } }
    }

    /// Sends every page a beat, with the host time it is heard at (the session's beat callback gives it once heard).
    /// Any thread: the sending is done on the event loop.
    func publish(_ beat: BeatEvent) {
        guard pages.withLock({ !$0.isEmpty }) else { return }
        let text = WebMessages.beat(beat)
        loop.execute { [self] in
            for channel in pages.withLock({ Array($0.values) }) { send(text, to: channel) }
        }
    }

    /// Sends one text frame; a page whose connection cannot take more (it stopped reading) is closed instead.
    func send(_ text: String, to channel: any Channel) {
        guard channel.isWritable else {
            counts.withLock { $0.slowPages += 1 }
            channel.close(promise: nil)
            return
        }
        let frame = WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(string: text))
        channel.writeAndFlush(frame, promise: nil)
    }

    // MARK: Commands

    /// Handles one text frame of a page: answers a ping, or performs a command through the service, answering a
    /// refusal with its reason.
    /// - Returns: the frame to send back, if any.
    func handle(_ text: String) -> String? {
        let command: WebCommand
        do { command = try WebCommand(parsing: text) } catch {
            counts.withLock { $0.refusedCommands += 1 }
            return WebMessages.refused(error.reason)
        }
        switch command {
        case .ping(let page):
            return WebMessages.pong(page: page, hostNanoseconds: HostTime.now().nanoseconds)
        case .message(var message):
            counts.withLock { $0.commands += 1 }
            if message.addressPattern == "/metronome/pattern" {
                // A page names one of the listed patterns; the service is given its file.
                guard message.arguments.count == 1, case .string(let name) = message.arguments[0],
                    let path = patterns.path(named: name)
                else {
                    counts.withLock { $0.refusedCommands += 1 }
                    return WebMessages.refused("/metronome/pattern: not a pattern this remote lists")
                }
                message.arguments = [.string(path)]
            }
            guard let reason = service.perform(message, from: WebHub.sender) else { return nil }
            counts.withLock { $0.refusedCommands += 1 }
            return WebMessages.refused(reason)
        }
    }
}

/// What a web remote counted since it started.
public struct WebCounts: Sendable, Hashable {
    /// Connections taken.
    public var connections = 0
    /// Connections closed at once because `maximumConnections` were open.
    public var refusedConnections = 0
    /// Pages served.
    public var pageLoads = 0
    /// Requests refused (a status of 400 or more), those that timed out included.
    public var refusedRequests = 0
    /// Connections that sent no whole request within the remote's request timeout (answered 408).
    public var timedOutRequests = 0
    /// WebSockets opened.
    public var pages = 0
    /// Commands the pages sent.
    public var commands = 0
    /// Frames that were not a command a page may send, and commands the service refused.
    public var refusedCommands = 0
    /// WebSocket frames that broke the protocol, each closing its socket (1002, 1007 or 1009).
    public var refusedFrames = 0
    /// Pages closed because they stopped reading.
    public var slowPages = 0
}
