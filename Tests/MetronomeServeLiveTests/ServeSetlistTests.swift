import Foundation
import MetronomeTestSupport
import Testing

/// `serve gig.setlist`: the set switched over OSC (python-osc), recorded, and its state asked for.
@Suite(
    "Live: a served setlist switched over OSC", .serialized,
    .enabled(if: PythonOSCClient.available, PythonOSCClient.missing))
struct ServeSetlistTests {
    /// What the client reports: the beats, and `/metronome/setlist` before and after the switch.
    struct Report: Decodable {
        var beats: [HeardBeat]
        var before: [String: StateValue]
        var after: [String: StateValue]
        var refused: String
        var pattern: String
    }

    @Test(
        "/metronome/setlist/next lands B on A's next bar line; B moves on to C 0.25 s after its end; /metronome/setlist/query says where the set is; a bad song number is refused"
    )
    func oscSwitch() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let set = scratch.file("gig.setlist")
        try """
        setlist "Served"
        song "A" click 120 4/4
        song "B" click 180 3/4 bars 2 then after 0.25s
        song "C" click 240 4/4 bars 1
        """.write(toFile: set, atomically: true, encoding: .utf8)
        let run = try serveAndRecord([set], server: server) { port in
            try PythonOSCClient.run(
                """
                def setlist():
                    send("/metronome/setlist/query")
                    params = until("/metronome/setlist").params
                    return dict(zip(params[0::2], params[1::2]))
                start()
                until_beat(lambda bar, beat, tempo: (bar, beat) == (1, 2))
                before = setlist()
                send("/metronome/setlist/next")
                until_beat(lambda bar, beat, tempo: tempo == 180)
                after = setlist()
                send("/metronome/setlist/song", 9)
                refused = query()["error"]
                send("/metronome/pattern", "waltz")
                pattern = query()["error"]
                until_beat(lambda bar, beat, tempo: tempo == 240 and beat == 4)
                finish(before=before, after=after, refused=refused, pattern=pattern)
                """, port: port, as: Report.self)
        }
        expectClean(run)
        let found = run.onsetFrames
        // A at 120 (24 000 frames a beat) until the switch, on a bar line (96 000 frames a bar) after beat 2.
        // B's first click: the first one followed by another 16 000 frames (a beat at 180) later.
        let bIndex = try #require(found.indices.dropLast().first { found[$0 + 1] - found[$0] == 16_000 })
        let bStart = found[bIndex]
        #expect(bStart % 96_000 == 0 && bStart >= 96_000, "\(found)")
        let a = Array(stride(from: 0, to: bStart, by: 24_000))
        let b = (0..<6).map { bStart + $0 * 16_000 }
        let c = (0..<4).map { bStart + 96_000 + 12_000 + $0 * 12_000 }
        #expect(found == a + b + c)
        let report = run.report
        #expect(report.before["song"] == .number(1) && report.before["count"] == .number(3))
        #expect(report.before["title"] == .text("A") && report.before["next"] == .text("B"))
        #expect(report.before["pending"] == .number(0) && report.before["waiting"] == .number(0))
        #expect(report.before["set"] == .text("Served"))
        #expect(report.after["song"] == .number(2) && report.after["title"] == .text("B"))
        #expect(report.after["next"] == .text("C") && report.after["pending"] == .number(0))
        #expect(report.refused == "/metronome/setlist/song: the song number must be 1 to 3, got 9")
        #expect(
            report.pattern
                == "/metronome/pattern: serving a setlist: switch songs with /metronome/setlist/next, previous, restart or song"
        )
    }
}
