import Foundation
import MetronomeTestSupport
import Testing

/// Every fuzzing harness replays its whole seed corpus (`Fuzz/corpus/NAME`: small real inputs and every reproducer
/// a fuzzing run has found) in the build under test (in CI, AddressSanitizer's, with LeakSanitizer, so a `leak-…`
/// reproducer leaking again fails; by hand, any build of every target), without libFuzzer's own build. The long
/// coverage-guided pass is `.ci/fuzz` (docs/fuzzing.md).
@Suite struct FuzzCorpusTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    /// The harnesses: the folders under Fuzz/ with a main.swift, as Package.swift finds them.
    static let harnesses: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fuzzFolder.path)) ?? []
        return names.filter {
            FileManager.default.fileExists(atPath: fuzzFolder.appendingPathComponent("\($0)/main.swift").path)
        }.sorted()
    }()

    @Test func everyHarnessIsFound() {
        #expect(
            Self.harnesses == [
                "audio", "bank", "chord", "klick", "metro", "osc", "plist", "setlist", "sf2", "smf", "web",
            ])
    }

    @Test(arguments: harnesses) func replaysItsCorpus(harness: String) throws {
        let corpus = Self.fuzzFolder.appendingPathComponent("corpus/\(harness)").path
        let seeds = try FileManager.default.contentsOfDirectory(atPath: corpus).count
        #expect(seeds > 0, "no seed in \(corpus)")
        let result = try ChildProcess(CommandRunner.builtExecutable("fuzz-\(harness)"), [corpus]).wait()
        #expect(result.status == 0, "fuzz-\(harness) on its corpus: \(result.standardError.suffix(2000))")
        #expect(result.standardOutput == "replayed \(seeds) inputs\n")
    }

    @Test func anInputItCannotReadIsRefused() throws {
        // A path that is neither a file nor a folder: exit 64, not a replay of nothing.
        let result = try ChildProcess(CommandRunner.builtExecutable("fuzz-chord"), ["/nonexistent/input"]).wait()
        #expect(result.status == 64)
        #expect(result.standardError == "error: cannot read '/nonexistent/input' (a file or a folder of inputs)\n")
    }
}
