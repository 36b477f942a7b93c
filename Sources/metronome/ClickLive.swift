import Glibc
import MetronomeKit
import MetronomePulse
import MetronomeService

/// `metronome` without `--output`: plays through PulseAudio until the map ends, `--bars`/`--duration` runs out, or
/// Ctrl-C / SIGTERM arrives. On a stop it schedules nothing new, lets the sounding click finish (fading it if it is
/// still going after 150 ms), drains the stream and exits 0 — within about 200 ms.
///
/// If the server or the sink goes away while playing, `PulseReconnector` keeps the beat on the host clock and reconnects
/// (or, with `--no-reconnect`, it exits 69 at once). Every wait on the server is bounded, so a stop signal ends the
/// command within some 150 ms (plus the drain of a server that still plays) whatever the server does.
///
/// Serving (`metronome serve`), it also listens for OSC: the socket is bound before any sound starts (a port in use
/// is exit 69), every beat goes to the service's subscribers, and it runs until a quit (OSC, keys, a signal), not
/// until the map ends.
struct ClickLive {
    let job: Job
    var plan: ClickPlan { job.plan }
    let live: LiveOptions.Checked
    var serving: ServeSetup? = nil

    func run() throws(CommandLineError) {
        let configuration = try mixerConfiguration(job.plan)
        let lookahead =
            live.lookahead.map { plan.sampleRate.frames(in: $0) }
            ?? Session.defaultLookahead(
                timerInterval: .milliseconds(10), outputLatency: live.latency, sampleRate: plan.sampleRate)
        let engine = try session(job.plan, configuration: configuration, lookahead: lookahead)
        let osc = try serving.map { setup throws(CommandLineError) in try OSCServiceHost.start(setup, session: engine) }
        let stop = StopSignals()
        let status = FileOutput.standardOutput.isTerminal && !job.quiet ? StatusLine() : nil
        let service = osc?.service
        // The first window is scheduled before the stream exists, so its first request already holds bar 1.
        if status != nil || service != nil {
            engine.start(output: nil) { beat in
                status?.show(beat)
                service?.publish(beat)
            }
        } else {
            engine.start(output: nil)
        }
        let driver = PulseDriver(device: live.device, latency: live.latency)
        var stream: PulseReconnector
        do throws(PulseError) {
            stream = try .start(
                session: engine, driver: driver, timeout: ClickLive.serverTimeout,
                reconnectTimeout: live.reconnectTimeout, isCancelled: { StopSignals.wasReceived })
        } catch {
            osc?.server.stop()
            engine.stop()
            switch error {
            case .cancelled: throw CommandLineError(.interrupted, error.description)
            case .noSuchSink: throw CommandLineError(.unavailable, error.description)
            default:
                let hint = serving == nil ? "; render to a file with --output FILE.wav" : ""
                throw CommandLineError(.unavailable, "\(error.description)\(hint)")
            }
        }
        service?.attach(output: stream.output)
        let buffer = stream.output.bufferFrames
        // klick's keys when standard input is a terminal; the terminal is put back however the command ends.
        let controls = SessionControls(session: engine, volume: min(1, Float(cbrt(Double(plan.gain)))))
        let keys = TerminalKeys.start { key in
            guard let action = KeyAction(key) else { return }
            if action == .help { FileOutput.standardError.write("\r\n" + KeyAction.summary + "\r\n") }
            controls.perform(action)
        }
        defer { keys?.restore() }

        var failure: CommandLineError?
        // Over at the end frame (--duration, --bars) even with notes held across it (they fade out below, as a
        // render's last frames do), or when a finite map has played out and every voice has ended.
        var reachedEnd = false
        while stop.signalReceived == nil, !controls.quitRequested, !(service?.quitRequested ?? false),
            service != nil || controls.userStopped || !(engine.isFinished || reachedEnd)
        {
            switch stream.poll(isCancelled: { StopSignals.wasReceived }) {
            case .none: break
            case .lost(let loss):
                let timeout = ClickLive.text(live.reconnectTimeout ?? .zero)
                FileOutput.standardError.write(
                    "metronome: \(loss.description); retrying for \(timeout) (--reconnect-timeout)\n")
            case .back(let fresh):
                service?.attach(output: fresh)
                let sink = fresh.sinkName.map { " (sink '\($0)')" } ?? ""
                FileOutput.standardError.write(
                    "metronome: PulseAudio at \(fresh.serverDescription) is back\(sink); playing on the same beat grid\n"
                )
            case .gaveUp(let reason):
                let message =
                    live.reconnectTimeout.map {
                        "no sound server for \(ClickLive.text($0)) (--reconnect-timeout): \(reason.description); stopped"
                    } ?? "\(reason.description); stopped"
                failure = CommandLineError(.unavailable, message)
            }
            if failure != nil { break }
            usleep(service == nil ? 50_000 : 10_000)
            reachedEnd = service == nil && engine.hasReachedEnd
        }
        osc?.server.stop()
        let output = stream.output
        if live.verbose, stream.isPlaying { output.measureLatency() }
        // Over at the end: the last sounds are faded at once; stopped early, the sounding click may finish first.
        stream.finish(ringOut: reachedEnd ? .zero : .milliseconds(150), latency: live.latency)
        status?.finish()
        if live.verbose { report(engine: engine, output: output, buffer: buffer, service: service) }
        if let failure { throw failure }
    }

    /// The longest a server may take to answer a connection or accept a stream.
    static let serverTimeout: Duration = .seconds(5)

    /// A duration in milliseconds, to the hundredth.
    private func milliseconds(_ duration: Duration) -> Double { (duration.inSeconds * 100_000).rounded() / 100 }

    /// "30 s", "2.5 s".
    static func text(_ duration: Duration) -> String {
        let seconds = duration.inSeconds
        return seconds == seconds.rounded() ? "\(Int64(seconds)) s" : "\(seconds) s"
    }

    private func report(
        engine: Session, output: PulseOutput, buffer: (target: Int, minimumRequest: Int)?, service: OSCService?
    ) {
        var lines: [String] = []
        if let buffer {
            let rate = Double(plan.sampleRate.framesPerSecond) / 1000
            let target = (Double(buffer.target) / rate * 10).rounded() / 10
            let request = (Double(buffer.minimumRequest) / rate * 10).rounded() / 10
            lines.append("stream buffer: target \(target) ms, minimum request \(request) ms")
        }
        lines.append("late events: \(engine.mixer.lateEventCount)")
        lines.append("underruns reported by the server: \(output.underrunCount)")
        lines += output.underrunReports.map(\.description)
        let timings = output.callbackTimings
        lines.append(
            "write callbacks: \(timings.count), the longest \(milliseconds(timings.longest)) ms, the widest gap "
                + "between two \(milliseconds(timings.widestGap)) ms")
        if let service {
            lines.append(
                "OSC: \(service.receivedCount) datagrams received, \(service.droppedCount) dropped, "
                    + "\(service.lateBundleCount) late bundles")
        }
        if let latency = output.latency {
            lines.append("measured latency: \((latency.inSeconds * 10_000).rounded() / 10) ms")
        }
        lines.append("real-time priority: \(output.hasRealTimePriority ? "yes" : "no")")
        if let first = output.firstWriteNanoseconds {
            lines.append("first audio written at monotonic \(first) ns")
        }
        FileOutput.standardError.write(lines.map { "metronome: \($0)\n" }.joined())
    }
}
