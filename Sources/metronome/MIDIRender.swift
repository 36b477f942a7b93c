import Glibc
import MetronomeFiles
import MetronomeKit

/// `metronome … --output FILE.mid`: exports the plan — its tempo map, its click and its notes — as a Standard MIDI
/// File (`MIDIExport`), written atomically like an audio render (a temporary file renamed into place).
struct MIDIRender {
    let job: Job
    var plan: ClickPlan { job.plan }
    let output: OutputPlan
    var path: String { output.path }

    func run() throws(CommandLineError) {
        guard let frameCount = plan.frameCount else {
            throw CommandLineError(.usage, "--output needs --bars N or --duration SECONDS")
        }
        let name = String(path.split(separator: "/").last ?? "metronome")
        var export = plan.midiExport(endFrame: frameCount, name: name)
        export.tempoCourse = output.midiTempo
        let file: MIDIFile
        do { file = try export.file() } catch { throw .usage(option: "--output", "\(path): \(error.description)") }
        let replacing = access(path, F_OK) == 0
        do { try AtomicFile.write(file.bytes(), to: path) } catch {
            throw CommandLineError(error.isCreation ? .cannotCreate : .ioError, error.description)
        }
        guard !job.quiet else { return }
        let length = plan.bars.map { "\($0) bar\($0 == 1 ? "" : "s"), " } ?? ""
        let milliseconds = Int((Double(frameCount) * 1000 / Double(plan.sampleRate.framesPerSecond)).rounded())
        let time = "\(milliseconds / 1000).\(String(1000 + milliseconds % 1000).dropFirst()) s"
        guard case .ticksPerQuarter(let division) = file.division else { return }
        print(
            "wrote \(path)\(replacing ? " (replacing the file there)" : ""): \(length)\(time), MIDI format 1, "
                + "\(file.tracks.count) tracks, \(division) ticks per quarter"
        )
    }
}

extension AudioFileError {
    /// Whether the output could not be created at all (73), as opposed to failing while written (74).
    fileprivate var isCreation: Bool {
        if case .cannotCreate = self { return true }
        return false
    }
}
