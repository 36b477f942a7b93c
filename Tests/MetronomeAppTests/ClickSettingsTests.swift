import Foundation
import MetronomeApp
import MetronomeModel
import MetronomeTestSupport
import Testing

/// MetronomeApp's rules on their own, without the binary: settings read from text into a checked request, the plan a
/// request makes (its length in frames, from the closed form), and where a pattern name is found. The command line
/// prints the same `SettingError` lines and exits 64 with them (MetronomeCLITests checks that end).
@Suite("MetronomeApp: the click's settings checked into a request")
struct ClickSettingsTests {
    /// The error a form's click request throws, or nil.
    static func refusal(_ entries: [(String, String?)], _ source: ClickFormSource = .click(silent: false)) -> String? {
        do {
            _ = try SettingForm(entries).clickRequest(source)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("--bpm in another beat unit, as the pattern language writes it: 4.=60 is 90, 8=240 is 120, 2=50 is 100")
    func tempoOfAnotherBeat() throws {
        #expect(try SettingText.tempo("4.=60") == BPM(90))
        #expect(try SettingText.tempo("8=240") == BPM(120))
        #expect(try SettingText.tempo("2=50") == BPM(100))
        #expect(try SettingText.tempo("97.5") == BPM(97.5))
        let request = try SettingForm([("--bpm", "4.=60"), ("--meter", "6/8")]).clickRequest(.click(silent: false))
        let plan = try ClickPlan(request.request)
        #expect(plan.map.tempo(at: .zero) == 90)
        #expect(plan.map.sections[0].meter == .of(6, 8))
    }

    @Test("A bad value is refused naming the setting, the whole text given and the range, in one line")
    func badValues() {
        #expect(
            Self.refusal([("--bars", "0")])
                == "--bars 0: the number of bars must be a whole number from 1 to 1000000")
        #expect(
            Self.refusal([("--duration", "-1")])
                == "--duration -1: duration must be a number of seconds greater than 0, at most 86400")
        #expect(
            Self.refusal([("--subdivide", "17")]) == "--subdivide 17: subdivision must be a whole number from 1 to 16")
        #expect(Self.refusal([("--channels", "3")]) == "--channels 3: channels must be 1 or 2")
        #expect(
            Self.refusal([("--count-in", "1.5")])
                == "--count-in 1.5: the count-in must be a whole number of bars from 0 to 16")
    }

    @Test("Settings that exclude each other are refused together, the first pair checked first")
    func exclusive() {
        #expect(
            Self.refusal([("--bars", "2"), ("--duration", "3")])
                == "--bars and --duration cannot be used together; choose one")
        #expect(
            Self.refusal([("--volume", "0.5"), ("--gain-db", "-6")])
                == "--volume and --gain-db cannot be used together; choose one")
        #expect(
            Self.refusal([("--sound", "wood"), ("--sound-file", "a.wav")])
                == "--sound and --sound-file cannot be used together; choose one")
    }

    @Test("A render needs a length; an unknown sound names every sound there is")
    func renderAndSound() {
        #expect(
            Self.refusal([("--output", "click.wav")])
                == "--output needs --bars N or --duration SECONDS: an endless click cannot be written to a file")
        let names = ClickStyle.allCases.map(\.rawValue).joined(separator: ", ")
        #expect(
            Self.refusal([("--sound", "gong")])
                == "--sound gong: unknown sound; choose one of \(names) (see 'metronome sounds')")
        #expect(
            Self.refusal([("--sound-file", "a.wav,,c.wav")])
                == "--sound-file a.wav,,c.wav: give one to three files separated by commas: ACCENT[,NORMAL[,SUB]]")
    }

    @Test("A pattern file sets its own meter, accents and sections: those settings are refused for it")
    func patternRefusals() {
        let pattern = ClickFormSource.pattern(PatternDocument(path: "/nowhere/groove.metro"), startAt: nil)
        #expect(
            Self.refusal([("--meter", "3/4")], pattern)
                == "--meter does not apply to 'play': the file sets the meter and accents of every section")
        #expect(
            Self.refusal([("--swing", "8 60%")], pattern)
                == "--swing does not apply to 'play': the file sets the swing of its sections")
        // The same settings are the click's own without a file.
        #expect(Self.refusal([("--meter", "3/4"), ("--bars", "1")]) == nil)
    }

    @Test("The plan's length is the closed form's: bars of the meter at the tempo, or the seconds asked for")
    func planLength() throws {
        let twoBars = try SettingForm([("--bpm", "120"), ("--meter", "3/4"), ("--bars", "2")])
            .clickRequest(.click(silent: false))
        // 2 bars of 3/4 at 120: 6 beats of 0.5 s at 48 kHz.
        let plan = try ClickPlan(twoBars.request)
        #expect(plan.frameCount == SampleTime(6 * 24_000))
        #expect(plan.bars == 2)
        let seconds = try SettingForm([("--bpm", "97"), ("--duration", "1.5"), ("--sample-rate", "44100")])
            .clickRequest(.click(silent: false))
        #expect(try ClickPlan(seconds.request).frameCount == 66_150)
        #expect(twoBars.output == nil && twoBars.request.rendersToFile == false)
    }
}

@Suite("MetronomeApp: where a pattern name is found")
struct PatternLibraryTests {
    @Test(
        "A bare name is a file of the shipped folder, then of the extra folders; a path or an unknown name stays as it is"
    )
    func lookup() throws {
        let shipped = try Scratch()
        let extra = try Scratch()
        try "tempo 120\n".write(toFile: shipped.file("basic.metro"), atomically: true, encoding: .utf8)
        try "tempo 90\n".write(toFile: extra.file("groove.metro"), atomically: true, encoding: .utf8)
        try "tempo 80\n".write(toFile: extra.file("basic.metro"), atomically: true, encoding: .utf8)
        let library = PatternLibrary(shippedFolder: shipped.path, extraFolders: [extra.path])
        #expect(library.document(named: "basic").path == shipped.file("basic.metro"))
        #expect(library.document(named: "basic.metro").path == shipped.file("basic.metro"))
        #expect(library.document(named: "groove").path == extra.file("groove.metro"))
        #expect(library.document(named: "groove").requestedName == "groove")
        #expect(library.document(named: "nothing").path == "nothing")
        #expect(library.document(named: "./groove").path == "./groove")
        #expect(library.shippedPatterns()?.map(\.name) == ["basic"])
        #expect(PatternLibrary(shippedFolder: nil).shippedPatterns() == nil)
    }

    @Test("A shipped pattern's plan: its own bars, tempo and meter, rendered to the frame")
    func patternPlan() throws {
        let folder = try Scratch()
        try "tempo 120\nmeter 2/4\n4 bars layer 3 clave subdivide 2 swing 8 50% gap play 1 mute 1\n"
            .write(toFile: folder.file("poly.metro"), atomically: true, encoding: .utf8)
        let document = PatternLibrary(shippedFolder: folder.path).document(named: "poly")
        let checked = try SettingForm([]).clickRequest(.pattern(document, startAt: nil))
        let plan = try ClickPlan(checked.request)
        // 4 bars of 2/4 at 120: 8 beats of 24 000 frames.
        #expect(plan.frameCount == SampleTime(8 * 24_000))
        #expect(plan.bars == 4)
    }
}

@Suite("A render's progress line and size")
struct RenderProgressTests {
    @Test(
        "40 % of a 230.5 MB WAV after 2 s: the bytes so far, 3 s left, 120× real time; FLAC without bytes, slow ones to a tenth"
    )
    func line() {
        // 600 s of sound, 240 s of it rendered in 2 s: 120 s a second, 3 s for the 360 s left.
        let total: SampleTime = 600 * 48_000
        let done: SampleTime = 240 * 48_000
        #expect(
            RenderProgress.line(done: done, of: total, bytes: 230_465_536, elapsed: .seconds(2), rate: 48_000)
                == "[################------------------------] 40%  92.2 MB of 230.5 MB  3 s left  120× real time")
        #expect(
            RenderProgress.line(done: done / 100, of: total, bytes: nil, elapsed: .seconds(2), rate: 48_000)
                == "[----------------------------------------] 0%  8 min left  1.2× real time")
        #expect(
            RenderProgress.line(done: done / 1000, of: total, bytes: nil, elapsed: .seconds(10), rate: 48_000)
                == "[----------------------------------------] 0%  416 min left  0.0× real time")
    }

    @Test("Sizes as a person reads them, in powers of 1000")
    func sizes() {
        #expect(RenderError.size(0) == "0 bytes")
        #expect(RenderError.size(999) == "999 bytes")
        #expect(RenderError.size(262_144) == "262.1 kB")
        #expect(RenderError.size(230_465_536) == "230.5 MB")
        #expect(RenderError.size(768_065_536_000) == "768.1 GB")
    }
}
