import Glibc
import MetronomeFiles
import MetronomeKit

/// `metronome … --output FILE`: renders the plan offline, as fast as possible, into a temporary file that is renamed
/// into place only when every frame has been written.
struct ClickRender {
    let plan: ClickPlan
    let output: OutputPlan
    /// The audio format `output` names.
    let audio: OutputPlan.Audio

    func run() throws(CommandLineError) {
        guard let frameCount = plan.frameCount else {
            throw CommandLineError(.usage, "--output needs --bars N or --duration SECONDS")
        }
        try checkSize(frameCount: frameCount)
        let configuration = try plan.mixerConfiguration()
        // Handlers go in before the temporary file exists, so an early Ctrl-C still removes it.
        let stop = StopSignals()

        let writer: AudioFileWriter
        do {
            writer = try AudioFileWriter(
                path: output.path, container: audio.container, sampleType: audio.sampleType,
                channels: plan.channels, sampleRate: plan.sampleRate)
        } catch {
            // A full disk is the same failure whether the header or the first frames find it.
            throw CommandLineError(error.isWriteFailure ? .ioError : .cannotCreate, error.description)
        }
        let renderer = try plan.session(configuration: configuration, lookahead: nil)

        var progress = ProgressBar(total: frameCount, output: .standardError, enabled: !plan.quiet)
        do {
            // The last 5 ms fade out: a render that ends while notes (or a click) sound ends faded, not cut.
            let fade = Int(plan.sampleRate.frames(in: .milliseconds(5)))
            try renderer.render(frameCount: frameCount, to: writer, fadeOutFrames: fade) { done in
                progress.update(done)
                return stop.signalReceived == nil
            }
        } catch {
            progress.clear()
            writer.abandon()
            throw CommandLineError(.ioError, String(describing: error))
        }
        progress.clear()
        if stop.signalReceived != nil {
            writer.abandon()
            throw CommandLineError(.interrupted, "interrupted; \(output.path) was not written")
        }
        do {
            try writer.finish()
        } catch {
            throw CommandLineError(.ioError, error.description)
        }
        if !plan.quiet {
            print(summary(frameCount: frameCount))
        }
    }

    /// AIFF keeps its sizes in 32 bits: a render that would outgrow 4 GB is refused before anything is written.
    /// (WAV becomes RF64 past 4 GB; FLAC and Ogg have no such limit.)
    private func checkSize(frameCount: SampleTime) throws(CommandLineError) {
        guard audio.container == .aiff else { return }
        let bytesPerSample: Int64 =
            switch audio.sampleType {
            case .pcm16: 2
            case .pcm24: 3
            case .float, .vorbis: 4
            }
        let (bytes, overflow) = frameCount.multipliedReportingOverflow(by: bytesPerSample * Int64(plan.channels))
        let limit = Int64(UInt32.max) - 1024
        guard overflow || bytes > limit else { return }
        let gigabytes = overflow ? "far more than 4" : String(Double(bytes / 10_000_000) / 100)
        throw CommandLineError(
            .usage,
            "--output \(output.path): this render is \(gigabytes) GB, more than an AIFF file can hold (4 GB); "
                + "write .wav (RF64 past 4 GB), .flac or .ogg")
    }

    private func summary(frameCount: SampleTime) -> String {
        let seconds = Double(frameCount) / Double(plan.sampleRate.framesPerSecond)
        let length = plan.bars.map { "\($0) bar\($0 == 1 ? "" : "s"), " } ?? ""
        let layout = plan.channels == 2 ? "stereo" : "mono"
        let milliseconds = Int((seconds * 1000).rounded())
        let time = "\(milliseconds / 1000).\(String(1000 + milliseconds % 1000).dropFirst()) s"
        return "wrote \(output.path): \(length)\(time), \(plan.sampleRate) Hz \(layout) \(audio.sampleType.rawValue)"
    }
}
