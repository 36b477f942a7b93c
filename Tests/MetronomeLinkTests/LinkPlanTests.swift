import MetronomeApp
import MetronomeLink
import MetronomeModel
import MetronomeTestSupport
import Testing

/// Link's rules for a plan, without a Link instance (none is created: nothing goes on the network).
@Suite("Link's tempo rule: a plan scaled to the session's tempo, within Link's range")
struct LinkPlanTests {
    /// The plan of a command line's settings.
    static func plan(_ settings: [(String, String)], _ source: ClickFormSource = .click(silent: false)) throws
        -> ClickPlan
    {
        try ClickPlan(try SettingForm(settings).clickRequest(source).request)
    }

    @Test(
        "A steady click takes the session's tempo and waits for its start; a session tempo outside the range leaves it")
    func steadyClick() throws {
        let plan = try Self.plan([("--bpm", "120"), ("--bars", "2")])
        let prepared = try LinkSession.prepared(plan, sessionTempo: 97)
        #expect(prepared.map.tempo(at: Position(ticks: 0)) == 97)
        #expect(prepared.waits)
        #expect(!plan.waits)
        // Link never reports a tempo outside its range; were it to, the plan keeps its own.
        #expect(try LinkSession.prepared(plan, sessionTempo: 1_500).map.tempo(at: Position(ticks: 0)) == 120)
    }

    @Test(
        "A song is scaled with its structure: its tempo change keeps its ratio; scaled out of Link's range is refused with the figures"
    )
    func songScaled() throws {
        let folder = try Scratch()
        try "tempo 100\nverse: 2 bars\ntempo 200\nchorus: 2 bars\n"
            .write(toFile: folder.file("song.metro"), atomically: true, encoding: .utf8)
        let document = PatternLibrary(shippedFolder: folder.path).document(named: "song")
        let plan = try Self.plan([], .pattern(document, startAt: nil))
        #expect(LinkSession.tempos(of: plan.map) == [100, 200])
        let prepared = try LinkSession.prepared(plan, sessionTempo: 120)
        #expect(LinkSession.tempos(of: prepared.map) == [120, 240])
        #expect(throws: LinkPlanError.scaledOutsideRange(session: 600, first: 100, scaled: 600, outside: 1_200)) {
            try LinkSession.prepared(plan, sessionTempo: 600)
        }
    }

    @Test(
        "The length follows the scaling: the map's end is the scaled map's, a number of bars the scaled map cut there, seconds stay seconds"
    )
    func lengthScaled() throws {
        let folder = try Scratch()
        try "# a ramp\na: 2 bars tempo 100-140\n".write(
            toFile: folder.file("ramp.metro"), atomically: true, encoding: .utf8)
        let document = PatternLibrary(shippedFolder: folder.path).document(named: "ramp")
        // The ramp sped up to start at 130 is shorter than it was: left at its unscaled end (193 600 frames), its last
        // two beats after a wait for the session's bar were cut.
        let ramp = try Self.plan([], .pattern(document, startAt: nil))
        let scaledRamp = try LinkSession.prepared(ramp, sessionTempo: 130)
        #expect(ramp.frameCount == ramp.map.endFrame)
        #expect(scaledRamp.frameCount == scaledRamp.map.endFrame)
        #expect(scaledRamp.frameCount != ramp.frameCount)
        let firstBar = try LinkSession.prepared(
            try Self.plan([("--bars", "1")], .pattern(document, startAt: nil)), sessionTempo: 130)
        // A number of bars shorter than the file: the map ends there, so the end comes after the wait for the
        // session's bar (a fixed frame counted from before the wait shortened it).
        #expect(firstBar.map.barCount == 1)
        #expect(firstBar.frameCount == firstBar.map.endFrame)
        #expect(firstBar.frameCount == scaledRamp.map.frame(ofBar: scaledRamp.map.firstBar + 1))
        let click = try LinkSession.prepared(try Self.plan([("--bpm", "120"), ("--bars", "2")]), sessionTempo: 97)
        #expect(click.frameCount == click.map.endFrame)
        // Eight beats at 97 BPM: 237 525.8 frames, the last ending on frame 237 526.
        #expect(click.frameCount == 237_526)
        let seconds = try LinkSession.prepared(
            try Self.plan([("--bpm", "120"), ("--duration", "5")]), sessionTempo: 97)
        #expect(seconds.frameCount == 240_000)
    }

    @Test("The default quantum is the first bar in quarter notes, from 1 to 64")
    func quantum() throws {
        #expect(LinkSession.barQuarters(try Self.plan([("--meter", "3/4")]).map) == 3)
        #expect(LinkSession.barQuarters(try Self.plan([("--meter", "6/8")]).map) == 3)
        #expect(LinkSession.barQuarters(try Self.plan([("--meter", "1/16")]).map) == 1)
    }
}
