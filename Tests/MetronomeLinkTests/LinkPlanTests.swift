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

    @Test("A steady click takes the session's tempo and waits for its start; a session tempo outside the range leaves it")
    func steadyClick() throws {
        let plan = try Self.plan([("--bpm", "120"), ("--bars", "2")])
        let prepared = try LinkSession.prepared(plan, sessionTempo: 97)
        #expect(prepared.map.tempo(at: Position(ticks: 0)) == 97)
        #expect(prepared.waits)
        #expect(!plan.waits)
        // Link never reports a tempo outside its range; were it to, the plan keeps its own.
        #expect(try LinkSession.prepared(plan, sessionTempo: 1_500).map.tempo(at: Position(ticks: 0)) == 120)
    }

    @Test("A song is scaled with its structure: its tempo change keeps its ratio; scaled out of Link's range is refused with the figures")
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

    @Test("The default quantum is the first bar in quarter notes, from 1 to 64")
    func quantum() throws {
        #expect(LinkSession.barQuarters(try Self.plan([("--meter", "3/4")]).map) == 3)
        #expect(LinkSession.barQuarters(try Self.plan([("--meter", "6/8")]).map) == 3)
        #expect(LinkSession.barQuarters(try Self.plan([("--meter", "1/16")]).map) == 1)
    }
}
