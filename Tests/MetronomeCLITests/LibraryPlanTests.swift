import Foundation
import MetronomeApp
import MetronomeModel
import MetronomePatterns
import MetronomeTestSupport
import Testing

/// README's "As a library": a few lines that do what `metronome play song --start-at chorus --tempo-scale 0.8
/// -o song.wav` does, through the application layer; the file must be the command's, bit for bit (its fingerprint,
/// recorded before the reshaping, is in Fingerprints/renders.txt).
@Suite("The application layer plans and renders what the command does")
struct LibraryPlanTests {
    @Test("play song --start-at chorus --tempo-scale 0.8, in the library: the command's render, bit for bit")
    func readmePlanExample() throws {
        let scratch = try Scratch()
        let path = scratch.file("song.wav")

        // From README.md, "As a library".
        let song = PatternLibrary().document(named: "song")
        let plan = try ClickPlan(ClickRequest(.pattern(song, startAt: "chorus", tempo: .scale(0.8))))
        let render = AudioFileRender(plan: plan, path: path, container: .wav, sampleType: .float)
        let written = try render.run()

        #expect(written)
        #expect(song.path == Self.patterns + "/song.metro")
        let line = "wav play song --start-at chorus --tempo-scale 0.8"
        let recorded = try #require(RenderFingerprintTests.table[line])
        #expect(try RenderFingerprintTests.fingerprint(ext: "wav", path: path) == recorded)
    }

    @Test("A missing pattern, a bad start and an endless render: typed errors, no file left")
    func planErrors() throws {
        let scratch = try Scratch()
        let library = PatternLibrary()
        #expect(throws: PlanError.self) { try ClickPlan(ClickRequest(.pattern(library.document(named: "nope")))) }
        do {
            _ = try ClickPlan(ClickRequest(.pattern(library.document(named: "nope"))))
        } catch {
            #expect(
                error.description
                    == "nope: no such file, and no shipped pattern has this name (see 'metronome patterns')")
        }
        do {
            _ = try ClickPlan(ClickRequest(.pattern(library.document(named: "song"), startAt: "coda")))
            Issue.record("a start at an unknown label was taken")
        } catch {
            guard case .startAt = error else { throw error }
        }
        var endless = ClickRequest(.pattern(library.document(named: "basic")))
        endless.rendersToFile = true
        do {
            _ = try ClickPlan(endless)
            Issue.record("an endless render was planned")
        } catch {
            #expect(error.description == Self.patterns + "/basic.metro plays without end")
        }
        let click = try ClickPlan(ClickRequest(.click(SectionSettings(tempo: BPM(120)))))
        let path = scratch.file("endless.wav")
        #expect(throws: RenderError.self) {
            try AudioFileRender(plan: click, path: path, container: .wav, sampleType: .float).run()
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// The repository's shipped patterns.
    static let patterns = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Patterns").path

    @Test("A SettingForm of the command's options makes the command's plan, and refuses with the command's lines")
    func settingForm() throws {
        let form = SettingForm([("--bpm", "90"), ("--meter", "7/8=2+2+3"), ("--bars", "2"), ("--output", "x.wav")])
        let checked = try form.clickRequest(.click(silent: false))
        // Two bars of 7/8 at 90 quarter notes a minute: 7 eighths of 1/3 s, 4.667 s, 224,000 frames.
        #expect(try ClickPlan(checked.request).frameCount == 224_000)
        #expect(checked.output?.path == "x.wav")
        #expect(checked.output?.audio?.container == .wav)
        #expect(checked.output?.audio?.sampleType == .float)

        func refusal(_ values: [(String, String?)], _ source: ClickFormSource = .click(silent: false)) -> String? {
            do {
                _ = try SettingForm(values).clickRequest(source)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(
            refusal([("--bars", "2"), ("--duration", "3")])
                == "--bars and --duration cannot be used together; choose one")
        let subdivision = try reason { () throws(InvalidValue) in try SettingText.subdivision("17") }
        #expect(refusal([("--subdivide", "17")]) == "--subdivide 17: \(subdivision)")
        #expect(
            refusal([("--meter", "3/4")], .pattern(PatternLibrary().document(named: "song"), startAt: nil))
                == "--meter does not apply to 'play': the file sets the meter and accents of every section")
        #expect(
            refusal([("--output", "x.wav")])
                == "--output needs --bars N or --duration SECONDS: an endless click cannot be written to a file")
        #expect(throws: SettingError("--latency applies only to live playback, not with --output")) {
            try SettingForm([("--latency", "30")]).liveSettings(rendering: true)
        }
        #expect(try SettingForm([("--latency", "30")]).liveSettings(rendering: false).latency == .milliseconds(30))
    }

    /// The reason `parse` gives for its text.
    private func reason(_ parse: () throws(InvalidValue) -> Int) throws -> String {
        do {
            _ = try parse()
        } catch {
            return error.reason
        }
        throw InvalidValue(value: "", reason: "the text parsed")
    }
}
