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
}
