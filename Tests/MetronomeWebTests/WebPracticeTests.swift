import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeService
import MetronomeTestSupport
import Testing

@testable import MetronomeWeb

/// What the page is told of the practice drills: each beat's `muted`, and the state's `practiceLeft`.
@Suite("Web remote: muted beats and the practice time left")
struct WebPracticeTests {
    @Test("A beat of a muted bar says muted:true, the others muted:false")
    func mutedBeat() throws {
        let map = try TempoMap.steady(tempo: BPM(120))
        var click = try #require(Rig.beats(of: map, playedTo: 1).first)
        #expect(
            WebMessages.beat(BeatEvent(click: click, map: map, hostNanoseconds: nil)).hasSuffix(#","muted":false}"#))
        click.isMuted = true
        #expect(
            WebMessages.beat(BeatEvent(click: click, map: map, hostNanoseconds: 5))
                == #"{"type":"beat","bar":1,"beat":1,"beats":4,"countIn":false,"level":"X","host":5,"frame":0,"tempo":120,"section":null,"chord":null,"muted":true}"#
        )
    }

    @Test("The state: practiceLeft null without a timer; with --practice 12m34s, 754 before the first click")
    func practiceLeft() throws {
        func state(practice: SampleTime?) throws -> String {
            let session = try Session(
                map: TempoMap.steady(tempo: BPM(120)), clicks: ClickSynthesizer.clickSet(.wood, sampleRate: .standard),
                configuration: MixerConfiguration())
            if let practice {
                session.practise(
                    PracticeTimer(duration: practice, sound: ClickSynthesizer.practiceEndSound(sampleRate: .standard)))
            }
            let service = try OSCService(
                session: session,
                settings: ServiceSettings(bank: InstrumentSynthesizer.bank(.piano, sampleRate: .standard))
            ) { _, _ in }
            return WebMessages.state(service.state, patterns: WebPatterns())
        }
        #expect(try state(practice: nil).contains(#","practiceLeft":null,"setlist":null}"#))
        #expect(try state(practice: 754 * 48000).contains(#","practiceLeft":754,"#))
        // A part of a second left counts as a second.
        #expect(try state(practice: 754 * 48000 - 1).contains(#","practiceLeft":754,"#))
    }

    @Test("The page shows both: the muted note and the practice line, and the script fills them")
    func pageHasThem() {
        let page = WebPage.html
        #expect(page.contains(#"<p id="muted" hidden>muted</p>"#))
        #expect(page.contains(#"<p id="practice" aria-label="Practice time left" hidden></p>"#))
        #expect(page.contains(#"$("lights").classList.toggle("muted", beat.muted);"#))
        #expect(page.contains(#"$("practice").textContent = "practice " + clockText(state.practiceLeft) + " left";"#))
    }
}
