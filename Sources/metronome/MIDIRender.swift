import MetronomeKit

/// `metronome … --output FILE.mid`: exports the plan as a Standard MIDI File (`MIDIFileRender`) and says what it
/// wrote.
struct MIDIRender {
    let job: Job
    let output: OutputPlan

    func run() throws(CommandLineError) {
        let summary = try MIDIFileRender(plan: job.plan, output: output).write()
        if !job.quiet, !summary.isEmpty { print(summary) }
    }
}
