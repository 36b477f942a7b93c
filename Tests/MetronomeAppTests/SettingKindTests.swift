import Foundation
import MetronomeApp
import MetronomeModel
import MetronomeMusic
import Testing

/// The settings' kinds (each option's name, help, default and parser, in the library), the rules of which settings
/// `check` and a setlist take, `chord`'s plan and the MIDI file render, without the binary: MetronomeCLITests checks
/// the same lines from it.
@Suite("MetronomeApp: settings' kinds, what check and a setlist take, chord's plan, a MIDI file render")
struct SettingKindTests {
    /// The error `body` throws, or nil.
    static func failure<Failure: Error & CustomStringConvertible>(_ body: () throws(Failure) -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return error.description
        }
    }

    /// The message of a command-line error `body` throws, or nil.
    static func commandFailure(_ body: () throws(CommandLineError) -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return "\(error.status.rawValue) \(error.message)"
        }
    }

    @Test("A setting's value is read by its kind's parser; a text it refuses is kept whole for the form's check")
    func valuesAndTexts() throws {
        #expect(SettingValue<Settings.Bars>("4").value == 4)
        let refused = SettingValue<Settings.Bars>("0")
        #expect(refused.value == nil && refused.text == "0")
        #expect(SettingValue<Settings.SampleRate>("44100").value?.framesPerSecond == 44_100)
        #expect(SettingValue<Settings.Latency>("35").value == .milliseconds(35))
        #expect(SettingValue<Settings.Rate>("1/8T").value == .eighthTriplet)
        // A name or a path is its text; only the whole form can check it.
        #expect(SettingValue<Settings.Sound>("nope").value == "nope")
        let given = SettingValue.entry(SettingValue<Settings.CountIn>("2"))
        #expect(given.0 == "--count-in" && given.1 == "2")
        let absent = SettingValue<Settings.CountIn>.entry(nil)
        #expect(absent.0 == "--count-in" && absent.1 == nil)
        // The form reads the same text with the same parser, and names it as the option.
        let form = SettingForm([SettingValue.entry(refused)])
        #expect(
            Self.failure { () throws(SettingError) in _ = try form.value("--bars", SettingText.bars) }
                == "--bars 0: the number of bars must be a whole number from 1 to 1000000")
    }

    @Test("Each default is written once: the help shows SettingDefault's text, and the form falls back on it")
    func defaultsOnce() throws {
        #expect(Settings.BPM.help.hasSuffix("(default \(SettingDefault.bpm))."))
        #expect(Settings.Latency.help.hasSuffix("(default \(SettingDefault.latency))."))
        #expect(Settings.SampleRate.help.hasSuffix("(default: \(SettingDefault.sampleRate))"))
        let live = try SettingForm([]).liveSettings(rendering: false)
        #expect(live.latency == .milliseconds(Int(SettingDefault.latency)!))
        #expect(live.reconnectTimeout == .seconds(Int(SettingDefault.reconnectTimeout)!))
        let voicing = try SettingForm([]).voicing()
        #expect(voicing.octave == Int(SettingDefault.octave)! && voicing.velocity == Int(SettingDefault.velocity)!)
        // The typed settings a library user builds without a form start from the same values.
        #expect(LiveSettings().latency == live.latency && LiveSettings().reconnectTimeout == live.reconnectTimeout)
        #expect(JackSettings().clientName == SettingDefault.clientName)
        let typed = Voicing()
        #expect(typed.octave == voicing.octave && typed.inversion == voicing.inversion)
        #expect(typed.velocity == voicing.velocity && typed.polyphony == voicing.polyphony)
        #expect(typed.instrument.rawValue == SettingDefault.instrument)
        let steps = ArpeggioSettings()
        let arpeggio = try SettingForm([]).arpeggio(voicing: voicing)
        #expect(steps.order == arpeggio.order && steps.rate == arpeggio.rate && steps.octaves == arpeggio.octaves)
        #expect(steps.gate == arpeggio.gate && steps.seed == arpeggio.seed)
    }

    @Test("check takes the timeline's settings; of a setlist none, the first given named")
    func check() {
        let timeline: [(String, String?)] = [("--bpm", "100"), ("--start-at", "2"), ("--tempo-scale", "0.5")]
        #expect(
            Self.failure { () throws(SettingError) in try SettingForm(timeline).refuseInCheck(setlist: false) } == nil)
        #expect(
            Self.failure { () throws(SettingError) in
                try SettingForm(timeline + [("--volume", "0.5"), ("--link", "")]).refuseInCheck(setlist: false)
            }
                == "--volume does not apply to 'check'; it takes --bpm, --tempo-scale, --start-at, --count-in and "
                + "--subdivide, as play does")
        #expect(
            Self.failure { () throws(SettingError) in
                try SettingForm([("--subdivide", "2")]).refuseInCheck(setlist: true)
            } == "--subdivide does not apply to 'check' of a setlist: each song's settings are in the file")
    }

    @Test("A setlist takes --quiet, --sample-rate and --soundfont; a note setting at its default was not given")
    func setlist() {
        let defaults = SettingForm([("--octave", "4"), ("--velocity", "100")])
        let taken: [(String, String?)] = [
            ("--quiet", ""), ("--sample-rate", "44100"), ("--soundfont", "gm.sf2"), ("--octave", "4"),
        ]
        #expect(
            Self.failure { () throws(SettingError) in try SettingForm(taken).refuseForSetlist(defaults: defaults) }
                == nil)
        #expect(
            Self.failure { () throws(SettingError) in
                try SettingForm(taken + [("--velocity", "90"), ("--bpm", "100")]).refuseForSetlist(defaults: defaults)
            } == "--velocity does not apply to a setlist: each song's settings are in the file")
        #expect(
            Self.failure { () throws(SettingError) in
                try SettingForm([("--output", "set.wav")]).refuseForSetlist(defaults: defaults)
            } == "--output does not apply to a setlist: a setlist plays live; render its songs one by one with play")
    }

    /// `chord CHORD` with `output`'s settings and nothing else.
    static func chord(
        _ chord: String, click: [(String, String?)] = [], section: [(String, String?)] = [],
        output: [(String, String?)] = [], strum: String = "0"
    ) -> ChordCommand {
        ChordCommand(
            chord: chord, strum: strum, notes: SettingForm([]), click: SettingForm(click),
            section: SettingForm(section), output: SettingForm(output))
    }

    @Test("chord: one chord, held --duration seconds and its release; the click's and a section's settings refused")
    func chordPlan() throws {
        let (plan, output) = try Self.chord("Cmaj7", output: [("--duration", "1.5")]).plan()
        #expect(output == nil && plan.title == "chord Cmaj7")
        let release = try Voicing().track(sampleRate: plan.sampleRate).bank.map { $0.zones.map(\.release).max() ?? 0 }
        #expect(plan.frameCount == plan.sampleRate.frame(at: 1.5 + (release ?? 2) + 0.05))
        #expect(
            Self.commandFailure { () throws(CommandLineError) in _ = try Self.chord("C Am").plan() }
                == "64 C Am: give one chord (use 'metronome arp' for a progression)")
        #expect(
            Self.commandFailure { () throws(CommandLineError) in
                _ = try Self.chord("C", click: [("--bpm", "90")], section: [("--gap", "1:1")]).plan()
            } == "64 --gap does not apply to 'chord': a held chord has no beats to shape")
        #expect(
            Self.commandFailure { () throws(CommandLineError) in
                _ = try Self.chord("C", click: [("--bpm", "90")], strum: "20").plan()
            } == "64 --bpm does not apply to 'chord': a held chord has no beat; it lasts --duration seconds")
        #expect(
            Self.commandFailure { () throws(CommandLineError) in _ = try Self.chord("C", strum: "-1").plan() }
                == "64 --strum -1: the strum must be 0 to 1000 milliseconds")
    }

    @Test("A MIDI file render writes the file and says what it wrote; an endless plan is refused")
    func midiFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("metronome-midi-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("click.mid").path
        let (plan, output) = try SettingForm([("--bars", "2"), ("--output", path)]).clickPlan(.click(silent: false))
        let render = MIDIFileRender(plan: plan, output: try #require(output))
        #expect(try render.write() == "wrote \(path): 2 bars, 4.000 s, MIDI format 1, 2 tracks, 960 ticks per quarter")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.prefix(4) == Data("MThd".utf8))
        #expect(try render.write().hasPrefix("wrote \(path) (replacing the file there): 2 bars"))
        let endless = MIDIFileRender(
            plan: try SettingForm([]).clickPlan(.click(silent: false)).plan, output: try #require(output))
        #expect(
            Self.commandFailure { () throws(CommandLineError) in _ = try endless.write() }
                == "64 --output needs --bars N or --duration SECONDS")
    }
}
