import Glibc
import MetronomeFiles
import MetronomeKit

/// `metronome … --output FILE`: renders the plan offline (`AudioFileRender`) with a progress bar, and says what it
/// wrote.
struct ClickRender {
    let job: Job
    let output: OutputPlan
    /// The audio format `output` names.
    let audio: OutputPlan.Audio

    func run() throws(CommandLineError) {
        let plan = job.plan
        guard let frameCount = plan.frameCount else {
            throw CommandLineError(.usage, "--output needs --bars N or --duration SECONDS")
        }
        var render = AudioFileRender(
            plan: plan, path: output.path, container: audio.container, sampleType: audio.sampleType)
        render.checksFreeSpace = !job.force
        // An existing file is replaced, atomically, and the summary says so (docs/options.md, "--output").
        let replacing = access(output.path, F_OK) == 0
        // Handlers go in before the temporary file exists, so an early Ctrl-C still removes it.
        let stop = StopSignals()
        var progress = ProgressBar(
            total: frameCount, output: .standardError, enabled: !job.quiet,
            bytes: render.knownFileBytes(frameCount: frameCount), framesPerSecond: plan.sampleRate.framesPerSecond)
        let finished: Bool
        do {
            finished = try render.run { done in
                progress.update(done)
                return stop.signalReceived == nil
            }
        } catch {
            progress.clear()
            throw CommandLineError(error, path: output.path)
        }
        progress.clear()
        guard finished else { throw CommandLineError(.interrupted, "interrupted; \(output.path) was not written") }
        if !job.quiet { print(summary(frameCount: frameCount, replaced: replacing)) }
    }

    private func summary(frameCount: SampleTime, replaced: Bool) -> String {
        let plan = job.plan
        let length = plan.bars.map { "\($0) bar\($0 == 1 ? "" : "s"), " } ?? ""
        let layout = plan.channels == 2 ? "stereo" : "mono"
        let time = TimelineTable.seconds(Double(frameCount) / Double(plan.sampleRate.framesPerSecond))
        return "wrote \(output.path)\(replaced ? " (replacing the file there)" : ""): \(length)\(time), "
            + "\(plan.sampleRate) Hz \(layout) \(audio.sampleType.rawValue)"
    }
}
