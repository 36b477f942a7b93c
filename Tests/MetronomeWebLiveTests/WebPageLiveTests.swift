import Foundation
import MetronomeTestSupport
import Testing

/// `metronome serve --http` through a private PulseAudio server, its page in headless Chromium.
@Suite(
    "metronome serve --http: the page in a real browser", .serialized,
    .enabled(if: WebPageDriver.available, WebPageDriver.missing))
struct WebPageLiveTests {
    /// Runs `serve ARGUMENTS --http` into a private PulseAudio server, drives its page through `scenario`, quits
    /// over OSC (the service must end 0) and returns the page's report and the service's result.
    static func drive<Report: Decodable>(
        _ scenario: String, _ arguments: [String], in namespace: NetworkNamespace? = nil, as type: Report.Type,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (report: Report, result: CommandResult) {
        let server = try PulseServer()
        let serve = try WebServe(arguments, namespace: namespace, server: server)
        let report = try WebPageDriver.run(
            scenario, url: serve.url, oscPort: serve.oscPort, namespace: namespace, as: type)
        let result = try serve.quit()
        #expect(result.status == 0, "\(result.standardError)", sourceLocation: sourceLocation)
        return (report, result)
    }

    struct Layout: Decodable {
        var innerWidth: Int
        var scrollWidth: Int
        var clientWidth: Int
        var widest: Double
        var small: [String]
        var unlabelled: [String]
    }

    struct ShownBeat: Decodable {
        var bar: Int
        var beat: Int
        var host: Double?
        var shownHost: Double?
    }

    struct Controls: Decodable {
        var layout: Layout
        var tempoShown: String
        var meterShown: String
        var statusShown: String
        var tempoBefore: Double
        var afterPlus: Double
        var tempoShownAfterPlus: String
        var tapTimes: [Double]
        var afterTaps: Double
        var afterPause: String
        var pausePressed: String
        var afterPlay: String
        var afterStop: String
        var counterAfterStop: Bool
        var counterHeld: String
        var fastTempo: Double
        var afterPlayAgain: String
        var oscTempoShown: Bool
        var oscMeterShown: Bool
        var afterRightArrow: Double
        var shown: [ShownBeat]
        var accentsShown: String
        var patternMenuShown: String
        var refused: [String]
    }

    @Test(
        "On a 360-pixel phone: no sideways scroll, 44-pixel targets, every control labelled; the page shows the service's tempo and meter; + raises it; taps 0.5 s apart set 120; pause, play, stop; → is +1 BPM; OSC changes appear"
    )
    func controls() throws {
        let (report, result) = try Self.drive("controls", ["--bpm", "120"], as: Controls.self)
        #expect(report.layout.innerWidth == 360)
        #expect(report.layout.scrollWidth == 360)
        #expect(report.layout.widest <= 360)
        #expect(report.layout.small == [])
        #expect(report.layout.unlabelled == [])
        #expect(report.statusShown == "connected")
        #expect(report.tempoShown == "120")
        #expect(report.meterShown == "4/4")
        #expect(report.tempoBefore == 120)
        #expect(report.afterPlus == 121)
        // Every figure shown from before the press to 0.2 s after the service has it: 120 then 121 alone (a state
        // pushed before the change arrived once put 120 back for a push).
        #expect(report.tempoShownAfterPlus == "120 121")
        // The taps' own times (the page's clock) give the tempo, whatever the WebSocket's delays: 120 to a few
        // hundredths (the browser's timers fire a fraction of a millisecond apart from 500 ms).
        #expect(report.tapTimes.count == 5)
        #expect(abs(report.afterTaps - 120) < 0.5, "\(report.afterTaps) from taps at \(report.tapTimes)")
        #expect(report.afterPause == "paused")
        #expect(report.pausePressed == "true")
        #expect(report.afterPlay == "playing")
        #expect(report.afterStop == "stopped")
        #expect(report.counterAfterStop)
        #expect(report.fastTempo == 600)
        #expect(report.counterHeld == "1.1")
        #expect(report.afterPlayAgain == "playing")
        #expect(report.oscTempoShown)
        #expect(report.oscMeterShown)
        #expect(report.afterRightArrow == 97)
        // Beats in 3/4 after the meter change, each with the host time it is heard at.
        #expect(report.shown.count == 6)
        #expect(
            report.shown.suffix(3).allSatisfy { (shown: ShownBeat) -> Bool in
                (1...3).contains(shown.beat) && shown.host != nil && shown.shownHost != nil
            })
        #expect(report.accentsShown == "X x x")
        #expect(report.patternMenuShown == "plain click")
        #expect(report.refused == [])
        #expect(result.standardError.contains("metronome: web: 1 page loads, 1 WebSockets, "))
    }

    struct Sections: Decodable {
        var stateSection: String
        var sectionsShown: [[String]]
        var chordShown: String
        var chordHidden: Bool
        var afterLocate: String
        var sectionsAfterLocate: [[String]]
        var afterVolume: Double
        var afterEnd: String
        var counterAfterEnd: String
        var accentsAfterEnd: String
        var patternsListed: [String]
        var patternShown: String
        var afterChoice: String
        var meterAfterChoice: String
        var patternShownAfterChoice: String
    }

    @Test(
        "Serving a pattern: its sections with the current one marked, a tap on another goes there at the next bar, the bar's chord shown; the volume slider sets the volume; played to its end it shows 1.1 and its first bar's accents; the pattern menu lists the served and shipped patterns and loads the one chosen"
    )
    func sections() throws {
        let (report, _) = try Self.drive("sections", ["chords"], as: Sections.self)
        #expect(report.stateSection == "arps")
        // The count-in is a section of the map too, labelled as `check` shows it.
        #expect(report.sectionsShown == [["count-in", "false"], ["arps", "true"], ["blocks", "false"]])
        #expect(["C", "Am", "F", "G"].contains(report.chordShown))
        #expect(!report.chordHidden)
        #expect(report.afterLocate == "blocks")
        #expect(report.sectionsAfterLocate == [["count-in", "false"], ["arps", "false"], ["blocks", "true"]])
        #expect(report.afterVolume == 0.5)
        #expect(report.afterEnd == "stopped")
        #expect(report.counterAfterEnd == "1.1")
        #expect(report.accentsAfterEnd == "X x x x")
        // The menu: the pattern served, then the shipped ones (chords already listed); waltz chosen is loaded.
        let shipped = shippedPatterns.map { String($0.dropLast(".metro".count)) }
        #expect(report.patternsListed == ["chords"] + shipped.filter { $0 != "chords" })
        #expect(report.patternShown == "chords")
        #expect(report.afterChoice.hasSuffix("/Patterns/waltz.metro"), "\(report.afterChoice)")
        #expect(report.meterAfterChoice == "3/4")
        #expect(report.patternShownAfterChoice == "waltz")
    }

    struct Setlist: Decodable {
        var title: String
        var first: [String]
        var listFirst: [[String]]
        var patternHidden: Bool
        var afterNext: Int
        var shownAfterNext: [String]
        var afterChoice: Int
        var shownAfterChoice: [String]
        var listAfterChoice: [[String]]
        var afterPrevious: Int
        var afterKey: Int
        var stage: [String]
    }

    @Test(
        "Serving a set: its title, the song and the next, the list with the current one marked; the next and previous buttons, a song's button and the n key switch songs (seen over OSC); the stage view shows the song"
    )
    func setlist() throws {
        let scratch = try Scratch()
        let set = scratch.file("page.setlist")
        try """
        setlist "Page set"
        switch now
        song "A" click 120 4/4
        song "B" click 100 3/4
        song "C" click 140 4/4
        """.write(toFile: set, atomically: true, encoding: .utf8)
        let (report, _) = try Self.drive("setlist", [set], as: Setlist.self)
        #expect(report.title == "Page set")
        #expect(report.first == ["1/3 A", "next: B"])
        #expect(report.listFirst == [["A", "true"], ["B", "false"], ["C", "false"]])
        #expect(report.patternHidden)
        #expect(report.afterNext == 2)
        #expect(report.shownAfterNext == ["2/3 B", "next: C"])
        #expect(report.afterChoice == 3)
        #expect(report.shownAfterChoice == ["3/3 C", "last song"])
        #expect(report.listAfterChoice == [["A", "false"], ["B", "false"], ["C", "true"]])
        #expect(report.afterPrevious == 2)
        #expect(report.afterKey == 3)
        #expect(report.stage == ["3/3 C", "last song"])
    }

    struct Token: Decodable {
        var withoutToken: [StringOrInt]
        var pageWithoutToken: String
        var statusWithToken: String
        var tempoWithToken: String
    }

    enum StringOrInt: Decodable, Equatable {
        case int(Int)
        case string(String)
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Int.self) {
                self = .int(value)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }

    @Test("--http-token on loopback: the URL printed carries the token; without it 401, with it the page connects")
    func token() throws {
        let server = try PulseServer()
        let serve = try WebServe(["--bpm", "100", "--http-token"], server: server)
        let token = serve.url.split(separator: "=").last.map(String.init) ?? ""
        #expect(serve.url.hasPrefix("http://127.0.0.1:") && serve.url.hasSuffix("/?token=\(token)"))
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit))
        let report = try WebPageDriver.run("token", url: serve.url, oscPort: serve.oscPort, as: Token.self)
        let result = try serve.quit()
        #expect(result.status == 0)
        #expect(
            report.withoutToken == [.int(401), .string("a token is needed: open the URL metronome printed\n")])
        #expect(report.pageWithoutToken == "a token is needed: open the URL metronome printed")
        #expect(report.statusWithToken == "connected")
        #expect(report.tempoWithToken == "100")
    }

    struct Looks: Decodable {
        struct Shot: Decodable {
            var path: String
            var background: String
            var scrollWidth: Int
            var clientWidth: Int
        }
        var screenshots: [Shot]
        var lit: [String: Int]
        var counters: [String: [String]]
    }

    @Test(
        "Screenshots at 360x740 and 1280x800, light and dark, kept; no sideways scroll; reduced motion lights nothing while the counter goes on"
    )
    func looks() throws {
        let (report, _) = try Self.drive("looks", ["--bpm", "150"], as: Looks.self)
        #expect(report.screenshots.count == 4)
        for shot in report.screenshots {
            let size = (try? FileManager.default.attributesOfItem(atPath: shot.path)[.size] as? Int) ?? 0
            #expect(size > 1000, "\(shot.path)")
            #expect(shot.scrollWidth == shot.clientWidth, "\(shot.path)")
        }
        #expect(
            report.screenshots.map(\.background) == [
                "rgb(250, 250, 250)", "rgb(17, 19, 22)", "rgb(250, 250, 250)", "rgb(17, 19, 22)",
            ])
        // 2.5 s at 150 BPM is six beats: lit without the preference, never lit with it, the counter going on in both.
        #expect((report.lit["no-preference"] ?? 0) > 0)
        #expect(report.lit["reduce"] == 0)
        #expect((report.counters["no-preference"]?.count ?? 0) >= 4)
        #expect((report.counters["reduce"]?.count ?? 0) >= 4)
    }

    struct LinkArea: Decodable {
        var shown: Bool
        var text: String
        var label: String
    }

    struct LinkSteps: Decodable {
        var withPeer: LinkArea
        var off: LinkArea
        var onAgain: LinkArea
    }

    @Test(
        "With --link beside a Link peer (both in a network namespace of the test's own, with only loopback), the page shows 'Link: 1 peer'; /metronome/link 0 hides it, /metronome/link 1 shows the peer again"
    )
    func linkPeers() throws {
        let namespace = try NetworkNamespace()
        #expect(try namespace.interfaces() == ["lo"])
        let peer = try namespace.start(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import link, signal, sys, time\nsignal.signal(signal.SIGTERM, lambda *_: sys.exit(0))\n"
                    + "peer = link.Link(120)\npeer.enabled = True\ntime.sleep(60)\nsys.exit(1)",
            ])
        let (report, result) = try Self.drive("link", ["--link", "--bpm", "120"], in: namespace, as: LinkSteps.self)
        peer.send(SIGTERM)
        #expect(peer.wait().status == 0)
        #expect(report.withPeer.shown && report.withPeer.text == "Link: 1 peer", "\(report.withPeer)")
        #expect(report.withPeer.label == "Link peers")
        #expect(!report.off.shown, "\(report.off)")
        #expect(report.onAgain.shown && report.onAgain.text == "Link: 1 peer", "\(report.onAgain)")
        // The switches went over OSC, not from the page.
        #expect(
            result.standardError.contains("metronome: web: 1 page loads, 1 WebSockets, 0 commands"),
            "\(result.standardError)")
    }
}

/// The stage view: the whole screen is the beat.
@Suite(
    "metronome serve --http: the page's stage view in a real browser", .serialized,
    .enabled(if: WebPageDriver.available, WebPageDriver.missing))
struct WebStageLiveTests {
    struct Record: Decodable {
        var page: Double
        var background: String
        var countColor: String
        var count: String
    }

    struct Shown: Decodable {
        var bar: Int
        var beat: Int
        var page: Double
    }

    struct Layout: Decodable {
        var innerWidth: Int
        var innerHeight: Int
        var scrollWidth: Int
        var scrollHeight: Int
        var countFigures: Double
        var tempoFigures: Double
        var stageShown: Bool
        var bodyStage: Bool
        var url: String
    }

    struct View: Decodable {
        var width: Int
        var height: Int
        var scheme: String
        var motion: String
        var layout: Layout
        var records: [Record]
        var shown: [Shown]
    }

    struct Wake: Decodable {
        var requests: Int
        var releases: Int
        var held: Bool
        var supported: Bool
        var error: String?
        var note: String?
        var state: String
    }

    struct Toggle: Decodable {
        var stage: Bool
        var url: String
    }

    struct Report: Decodable {
        var views: [View]
        var wake: [String: Wake]
        var toggles: [String: Toggle]
        var screenshots: [String: String]
    }

    /// The page's colours (WebPage.style): the background, the downbeat's and the other beats'.
    static let colours = [
        "light": (plain: "rgb(250, 250, 250)", down: "rgb(194, 65, 12)", beat: "rgb(11, 95, 209)"),
        "dark": (plain: "rgb(17, 19, 22)", down: "rgb(255, 138, 76)", beat: "rgb(94, 161, 255)"),
    ]

    @Test(
        "Stage view at 360x640 and 1280x800, light and dark, at 150 BPM: no scrolling; figures 80 and 50 px tall on the phone; every frame in the 100 ms after a beat is drawn has the downbeat's or the other beats' colour over the whole screen, every frame 250 to 350 ms after it the plain one; calm, the screen stays plain and bar.beat takes the colour; a wake lock held while playing, released on a stop, held again on play; the button, s and Esc"
    )
    func stage() throws {
        let (report, _) = try WebPageLiveTests.drive("stage", ["--bpm", "150"], as: Report.self)
        #expect(report.views.count == 5)
        for view in report.views {
            let name = "\(view.width)x\(view.height) \(view.scheme) \(view.motion)"
            let colours = try #require(Self.colours[view.scheme])
            let layout = view.layout
            #expect(layout.stageShown && layout.bodyStage, "\(name)")
            #expect(layout.scrollHeight <= layout.innerHeight, "\(name): \(layout)")
            #expect(layout.scrollWidth <= layout.innerWidth, "\(name): \(layout)")
            if view.width == 360 {
                #expect(layout.countFigures >= 80, "\(name): \(layout)")
                #expect(layout.tempoFigures >= 50, "\(name): \(layout)")
            }
            // 2.5 s at 150 BPM: six beats drawn, a beat every 400 ms.
            #expect(view.shown.count >= 5, "\(name): \(view.shown)")
            let last = view.records.last?.page ?? 0
            for beat in view.shown where beat.page + 350 < last {
                let at = view.records.filter { (record: Record) -> Bool in
                    record.page > beat.page && record.page <= beat.page + 100
                }
                let between = view.records.filter { (record: Record) -> Bool in
                    record.page >= beat.page + 250 && record.page <= beat.page + 350
                }
                let colour = beat.beat == 1 ? colours.down : colours.beat
                #expect(!at.isEmpty && !between.isEmpty, "\(name): beat \(beat.bar).\(beat.beat)")
                if view.motion == "reduce" {
                    #expect(
                        at.allSatisfy { $0.background == colours.plain && $0.countColor == colour }, "\(name): \(at)")
                    #expect(between.allSatisfy { $0.background == colours.plain }, "\(name): \(between)")
                } else {
                    #expect(at.allSatisfy { $0.background == colour }, "\(name): beat \(beat.beat): \(at)")
                    #expect(between.allSatisfy { $0.background == colours.plain }, "\(name): \(between)")
                }
                #expect(at.allSatisfy { $0.count == "\(beat.bar).\(beat.beat)" }, "\(name): \(at)")
            }
        }
        let playing = try #require(report.wake["playing"])
        let stopped = try #require(report.wake["stopped"])
        let again = try #require(report.wake["playingAgain"])
        #expect(playing.supported && playing.held && playing.requests >= 1 && playing.note == nil, "\(playing)")
        #expect(!stopped.held && stopped.releases >= 1 && stopped.state == "■ stopped", "\(stopped)")
        #expect(again.held && again.requests >= 2, "\(again)")
        #expect(report.toggles["start"].map { (toggle: Toggle) -> Bool in !toggle.stage } == true)
        #expect(
            report.toggles["button"].map { (toggle: Toggle) -> Bool in toggle.stage && toggle.url.contains("stage=1") }
                == true)
        #expect(
            report.toggles["escape"].map { (toggle: Toggle) -> Bool in !toggle.stage && !toggle.url.contains("stage") }
                == true)
        #expect(
            report.toggles["key"].map { (toggle: Toggle) -> Bool in toggle.stage && toggle.url.contains("stage=1") }
                == true)
        #expect(Set(report.screenshots.keys) == ["at a beat", "between beats"], "\(report.screenshots)")
        for path in report.screenshots.values {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(size > 1000, "\(path)")
        }
    }
}
