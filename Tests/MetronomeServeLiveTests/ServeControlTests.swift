import Foundation
import MetronomeTestSupport
import Testing

/// `metronome serve`'s state replies and its `--osc` option, against a private server.
@Suite(
    "metronome serve: state replies and the OSC address option", .serialized,
    .enabled(if: PythonOSCClient.available, PythonOSCClient.missing))
struct ServeControlTests {
    @Test(
        "/metronome/query replies carry the state: playing, tempo after a change, 7/8 after /metronome/meter, subscribers, and each dropped datagram's count and reason"
    )
    func queryRepliesCarryTheState() throws {
        struct Report: Decodable {
            var beats: [HeardBeat]
            var start: [String: StateValue]
            var changed: [String: StateValue]
            var rejected: [[String: StateValue]]
            var sent: Int
        }
        let server = try PulseServer()
        let serve = try ServeProcess(["--bpm", "120"], server: server)
        let report = try PythonOSCClient.run(
            """
            start = query()
            send("/metronome/subscribe")
            until("/metronome/beat")
            send("/metronome/tempo", 100.0)
            send("/metronome/meter", 7, 8)
            until_beat(lambda bar, beat, tempo: beat == 2 and tempo == 100 and beats[-2]["beat"] == 1
                       and any(b["beat"] == 7 for b in beats))
            changed = query()
            rejected = []
            for garbage in (b"hello!!!", message("/metronome/tempo", "fast").dgram, message("/metronome/nope").dgram):
                send_bytes(garbage)
                rejected.append(query())
            finish(start=start, changed=changed, rejected=rejected, sent=sent + 1)
            """, port: serve.port, as: Report.self)
        let result = serve.child.wait()
        #expect(result.status == 0)
        let start = report.start
        #expect(start["playing"] == .number(1))
        #expect(start["state"] == .text("playing"))
        #expect(start["tempo"] == .number(120))
        #expect(start["meter"] == .text("4/4"))
        #expect(start["subscribers"] == .number(0))
        #expect(start["received"] == .number(1))
        #expect(start["dropped"] == .number(0))
        #expect(start["error"] == .text(""))
        #expect(start["sound"] == .text("wood"))
        #expect(start["volume"] == .number(1))
        #expect(start["pattern"] == .text(""))
        #expect(start["late"] == .number(0))
        let changed = report.changed
        #expect(changed["tempo"] == .number(100))
        #expect(changed["meter"] == .text("7/8"))
        #expect(changed["beat"] == .number(2))
        #expect(changed["subscribers"] == .number(1))
        #expect(changed["dropped"] == .number(0))
        #expect(changed["late"] == .number(0))
        let dropped = report.rejected.map { (reply: [String: StateValue]) -> StateValue? in reply["dropped"] }
        let expectedDropped: [StateValue?] = [.number(1), .number(2), .number(3)]
        #expect(dropped == expectedDropped)
        let errors = report.rejected.map { (reply: [String: StateValue]) -> StateValue? in reply["error"] }
        let expectedErrors: [StateValue?] = [
            .text("data at byte 0 starts with 'h', not '/' (a message) or '#bundle'"),
            .text("/metronome/tempo: the tempo must be a number, got s \"fast\""),
            .text("/metronome/nope: unknown address"),
        ]
        #expect(errors == expectedErrors)
        // Every datagram the client sent, the quit included, was received (the last query counts itself).
        let received = StateValue.number(Double(report.sent - 1))
        #expect(report.rejected.last?["received"] == received)
    }

    @Test("--osc 0.0.0.0:0 listens on every address and warns once, in one line, that OSC has no authentication")
    func nonLoopbackWarnsOnce() throws {
        let server = try PulseServer()
        let serve = try ServeProcess(["--bpm", "120"], osc: "0.0.0.0:0", server: server)
        let port = String(serve.port)
        #expect(try ChildProcess("/usr/bin/oscsend", ["127.0.0.1", port, "/metronome/quit"]).wait().status == 0)
        let result = serve.child.wait()
        #expect(result.status == 0)
        let lines = result.standardError.split(separator: "\n")
        let warning: String =
            "metronome: warning: OSC has no authentication: anyone who can reach udp 0.0.0.0:\(port) can start, stop "
            + "and retime the metronome, play notes, load any pattern file this user can read, and make it quit"
        let expectedWarnings: [Substring] = [Substring(warning)]
        #expect(lines.filter { $0.contains("warning") } == expectedWarnings)
        #expect(lines.contains("metronome: listening for OSC on udp 0.0.0.0:\(port)"))
    }
}
