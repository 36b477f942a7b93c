import Glibc
import MetronomeFiles
import MetronomeMIDI
import MetronomeMusic

/// A plan exported as a Standard MIDI File (`MIDIExport`): its tempo map, its click and its notes, written atomically
/// like an audio render (a temporary file renamed into place, replacing one already there).
public struct MIDIFileRender {
    /// What is exported.
    public let plan: ClickPlan
    /// The file (`.mid`) and its tempo course.
    public let output: OutputPlan

    /// A render of `plan` to `output`.
    public init(plan: ClickPlan, output: OutputPlan) {
        self.plan = plan
        self.output = output
    }

    /// Writes the file.
    /// - Returns: the line saying what was written (`wrote PATH: 4 bars, 8.000 s, MIDI format 1, …`).
    /// - Throws: `CommandLineError`: 64 an endless plan or one MIDI cannot hold, 73 a file that cannot be created,
    ///   74 one that failed while written.
    public func write() throws(CommandLineError) -> String {
        let path = output.path
        guard let frameCount = plan.frameCount else {
            throw CommandLineError(.usage, "--output needs --bars N or --duration SECONDS")
        }
        var export = plan.midiExport(endFrame: frameCount, name: String(path.split(separator: "/").last ?? "metronome"))
        export.tempoCourse = output.midiTempo
        let file: MIDIFile
        do { file = try export.file() } catch { throw .usage(option: "--output", "\(path): \(error.description)") }
        let replacing = access(path, F_OK) == 0
        do { try AtomicFile.write(file.bytes(), to: path) } catch {
            let created: Bool
            if case .cannotCreate = error { created = false } else { created = true }
            throw CommandLineError(created ? .ioError : .cannotCreate, error.description)
        }
        let length = plan.bars.map { "\($0) bar\($0 == 1 ? "" : "s"), " } ?? ""
        let milliseconds = Int((Double(frameCount) * 1000 / Double(plan.sampleRate.framesPerSecond)).rounded())
        let time = "\(milliseconds / 1000).\(String(1000 + milliseconds % 1000).dropFirst()) s"
        guard case .ticksPerQuarter(let division) = file.division else { return "" }
        return "wrote \(path)\(replacing ? " (replacing the file there)" : ""): \(length)\(time), MIDI format 1, "
            + "\(file.tracks.count) tracks, \(division) ticks per quarter"
    }
}
