import Foundation
import MetronomeOSC
import MetronomeTestSupport
import Testing

/// What `Peers/web_flood.py` saw: every connection's outcome, the phases' wall-clock times, when the flood began and
/// ended (`CLOCK_MONOTONIC` seconds), and the page it asked for afterwards.
struct FloodReport: Decodable {
    struct Connection: Decodable, Hashable, CustomStringConvertible {
        var phase: String
        var kind: String
        /// The status of the response; nil when none came.
        var status: Int?
        /// The code of the server's WebSocket close frame; nil when none came.
        var close: Int?
        /// The `refused` messages the server sent the page.
        var refusals: Int
        var pongs: Int
        /// Every byte the server sent.
        var bytes: Int

        /// Closed by the server with nothing sent: refused at the connection limit.
        var refusedAtLimit: Bool { status == nil && bytes == 0 }
        var answer: WebFloodLiveTests.Answer {
            WebFloodLiveTests.Answer(status ?? 0, close: close, refusals: refusals, pongs: pongs)
        }
        var description: String { "\(phase) \(kind): \(answer)" }
    }

    struct Page: Decodable {
        var status: Int
        var bytes: Int
        var title: Bool
    }

    var connections: [Connection]
    var seconds: [String: Double]
    var started: Double
    var finished: Double
    var page: Page

    func phase(_ name: String) -> [Connection] { connections.filter { $0.phase == name } }
}

/// `metronome serve --http` playing into a private PulseAudio server while 1000 hostile connections come at it.
@Suite("metronome serve --http under a flood of hostile connections, live", .serialized)
struct WebFloodLiveTests {
    /// What the service answers a connection of a kind with when it takes it: a status, and for a WebSocket the code
    /// of its close frame (nil: none, the client having reset it or half-closed it first), the `refused` messages
    /// and the pongs.
    struct Answer: Hashable, CustomStringConvertible {
        var status: Int
        var close: Int?
        var refusals = 0
        var pongs = 0

        init(_ status: Int, close: Int? = nil, refusals: Int = 0, pongs: Int = 0) {
            (self.status, self.close, self.refusals, self.pongs) = (status, close, refusals, pongs)
        }

        static func socket(_ close: Int?, refusals: Int = 0, pongs: Int = 0) -> Answer {
            Answer(101, close: close, refusals: refusals, pongs: pongs)
        }

        var description: String {
            "\(status)" + (close.map { " close \($0)" } ?? "") + " \(refusals) refusals \(pongs) pongs"
        }
    }

    /// Every kind `web_flood.py` sends that the service answers, and the answer (docs/web.md, "Security").
    static let answers: [String: Answer] = [
        "garbage": Answer(400), "oversize-head": Answer(400), "many-headers": Answer(400), "post": Answer(405),
        "not-found": Answer(404), "no-host": Answer(400), "rebinding-host": Answer(403),
        "upgrade-no-key": Answer(400), "upgrade-bad-version": Answer(400), "upgrade-foreign-origin": Answer(403),
        "upgrade-no-connection": Answer(400), "page": Answer(200), "page-reset": Answer(200),
        "page-held": Answer(200),
        "ws-unmasked": .socket(1002), "ws-reserved-bits": .socket(1002), "ws-opcode-3": .socket(1002),
        "ws-fragmented-ping": .socket(1002), "ws-long-ping": .socket(1002), "ws-continuation-first": .socket(1002),
        "ws-oversize": .socket(1009), "ws-fragments-too-large": .socket(1009), "ws-not-utf8": .socket(1007),
        "ws-binary": .socket(1003), "ws-refused-commands": .socket(1000, refusals: 2),
        "ws-ping": .socket(1000, pongs: 1), "ws-close": .socket(1000), "ws-reset": .socket(nil),
        "ws-fin": .socket(nil),
    ]

    /// The kinds whose outcome the client cannot see when they are taken (nothing sent, a reset at once, a partial
    /// head and a FIN): sent only while the service is full.
    static let blind: Set = ["nothing", "reset-at-once", "partial-head-then-fin"]

    /// The connection limit (`WebRemote.defaultMaximumConnections`).
    static let limit = 32

    /// One run: the flood's report, the service's state over OSC after it, the exit, the recording.
    struct Run {
        var flood: FloodReport
        var state: [String: OSCArgument]
        var result: CommandResult
        var recording: [Float]
    }

    @Test(
        "1000 hostile connections at serve --http while it plays: every one answered as documented or refused at the limit, the service alive (OSC and the page), every refusal counted exactly in --verbose, the click exactly 24000 frames apart throughout, exit 0"
    )
    func flood() throws {
        // One run, never repeated, as the OSC flood (ServeFuzzTests): the subject is hostile traffic, and an underrun
        // under it is a finding. Our write callbacks' timings cannot clear the service there: its threads handle the
        // flood on the same two cores as the server's main thread, which an underrun shows did not ask in time, so
        // a repeat could hide the very thing this test is for. It used to be repeated for an underrun while the
        // OSC flood called an underrun a finding; both now play with a 40 ms buffer, which the server's own measured
        // stalls (up to 20.5 ms without a request in the OSC flood) do not drain, and what is checked of ours (every
        // connection answered, every click 24000 frames apart) does not depend on the buffer's length.
        let server = try PulseServer()
        let recording = try server.startRecording()
        let serve = try WebServe(["--bpm", "120", "--latency", "40"], server: server)
        usleep(1_000_000)
        let portText: Substring = serve.url.split(separator: ":").last?.prefix { $0.isNumber } ?? ""
        let port = try #require(Int(portText))
        let flood = try Self.flood(port: port)
        let state = try Self.query(port: serve.oscPort)
        let result = try serve.quit()
        let run = Run(flood: flood, state: state, result: result, recording: try recording.finish())
        let verbose = PulseServer.VerboseReport(standardError: result.standardError)
        #expect(reportedUnderruns(result.standardError) == 0, "\(verbose.figures)")
        #expect(run.result.status == 0, "\(run.result.standardError)")
        #expect(verbose.lateEvents == 0, "\(verbose.figures)")

        // The traffic: 1000 connections, then one of each kind answered, one at a time.
        let pages = flood.phase("pages")
        let full = flood.phase("full")
        let mixed = flood.phase("mixed")
        let single = flood.phase("single")
        #expect(pages.count == Self.limit)
        #expect(pages.count + full.count + mixed.count == 1000)
        #expect(Set(single.map(\.kind)) == Set(Self.answers.keys))
        // The pages, upgraded while the service was full, each ended as its kind is answered.
        #expect(pages.filter { $0.answer != Self.answers[$0.kind] } == [])
        // While full: every connection closed with nothing sent, whatever it sent.
        #expect(full.count == 1000 / 2 - Self.limit)
        #expect(full.filter { !$0.refusedAtLimit } == [])
        #expect(Set(full.map(\.kind)) == Set(Self.answers.keys).union(Self.blind))
        // The rest at once: each answered as its kind is, or refused at the limit.
        #expect(mixed.filter { !$0.refusedAtLimit && $0.answer != Self.answers[$0.kind] } == [])
        #expect(single.filter { $0.answer != Self.answers[$0.kind] } == [])

        // Alive afterwards: the page and OSC.
        #expect(flood.page.status == 200 && flood.page.title && flood.page.bytes > 10_000)
        let commands = flood.connections.count { $0.kind == "ws-refused-commands" && $0.status == 101 }
        #expect(run.state["received"] == .int32(1), "the query")
        #expect(run.state["dropped"] == .int32(Int32(commands)), "each page's /metronome/tempo 0, refused")
        #expect(run.state["state"] == .string("playing"))
        #expect(run.state["tempo"] == .float32(120))
        #expect(run.state["late_events"] == .int32(0))

        // Counted, exactly: the report's line from what the client saw.
        let connections = flood.connections
        let loads: Int = connections.count { $0.status == 200 } + 1
        let sockets: Int = connections.count { $0.status == 101 }
        let refusals = connections.reduce(0) { (sum: Int, connection: FloodReport.Connection) -> Int in
            sum + connection.refusals
        }
        let refusedCommands: Int = refusals + connections.count { $0.close == 1003 }
        let refusedRequests: Int = connections.count { ($0.status ?? 0) >= 400 }
        let refusedConnections: Int = connections.count { $0.status == nil }
        let refusedFrames: Int = connections.count { [1002, 1007, 1009].contains($0.close) }
        let line: String =
            "metronome: web: \(loads) page loads, \(sockets) WebSockets, \(commands) commands (\(refusedCommands) "
            + "refused), \(refusedRequests) requests refused (0 timed out), \(refusedConnections) of \(connections.count + 1) "
            + "connections refused, \(refusedFrames) frames refused, 0 slow pages closed\n"
        #expect(run.result.standardError.contains(line), "\(line)\(run.result.standardError)")
        #expect(refusedConnections >= full.count)

        // The sound: every click exactly 24000 frames after the one before, from before the flood to after it.
        let found = onsets(run.recording)
        let gaps = zip(found.dropFirst(), found).map { (pair: (Int, Int)) -> Int in pair.0 - pair.1 }
        let steady = [Int](repeating: 24000, count: max(0, found.count - 1))
        #expect(gaps == steady)
        let first = try #require(Self.firstAudio(run.result.standardError))
        let heardByTheEnd: Int = Int((flood.finished - first) / 0.5) + 1
        #expect(found.count >= heardByTheEnd, "\(found.count) clicks; \(heardByTheEnd) were due by the flood's end")
        #expect(flood.started > first)
    }

    /// Runs `Peers/web_flood.py` against the port and decodes its report.
    static func flood(port: Int) throws -> FloodReport {
        let script = WebPageDriver.peers + "/web_flood.py"
        let result = try ChildProcess("/usr/bin/env", ["python3", script, String(port)]).wait()
        guard result.status == 0 else { throw FloodFailure(reason: result.standardError) }
        return try JSONDecoder().decode(FloodReport.self, from: Data(result.standardOutput.utf8))
    }

    struct FloodFailure: Error { var reason: String }

    /// The service's `/metronome/state`, asked over OSC (empty when no answer comes within 2 s).
    static func query(port: Int) throws -> [String: OSCArgument] {
        try OSCSocket(binding: .loopback(port: 0)).metronomeState(from: .loopback(port: UInt16(port)))
    }

    /// When `--verbose` says the first audio was written, in `CLOCK_MONOTONIC` seconds.
    static func firstAudio(_ standardError: String) -> Double? {
        let prefix = "metronome: first audio written at monotonic "
        guard let line = standardError.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
            let nanoseconds = Double(line.dropFirst(prefix.count).prefix { $0.isNumber })
        else { return nil }
        return nanoseconds / 1e9
    }
}
