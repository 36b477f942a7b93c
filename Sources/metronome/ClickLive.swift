import Glibc
import MetronomeKit
import MetronomePulse
import MetronomeService

/// `metronome` without `--output`: plays through PulseAudio until the map ends, `--bars`/`--duration` runs out, or
/// Ctrl-C / SIGTERM arrives. On a stop it schedules nothing new, lets the sounding click finish (fading it if it is
/// still going after 150 ms), drains the stream and exits 0 — within about 200 ms.
///
/// If the server goes away while playing, it exits 69 with a message naming the server (it does not reconnect).
///
/// Serving (`metronome serve`), it also listens for OSC: the socket is bound before any sound starts (a port in use
/// is exit 69), every beat goes to the service's subscribers, and it runs until a quit (OSC, keys, a signal), not
/// until the map ends.
struct ClickLive {
    let plan: ClickPlan
    let live: LiveOptions.Checked
    var serving: ServeSetup? = nil

    func run() throws(CommandLineError) {
        let configuration = try plan.mixerConfiguration()
        let lookahead =
            live.lookahead.map { plan.sampleRate.frames(in: $0) }
            ?? Session.defaultLookahead(
                timerInterval: .milliseconds(10), outputLatency: live.latency, sampleRate: plan.sampleRate)
        let engine = try plan.session(configuration: configuration, lookahead: lookahead)
        let osc = try serving.map { setup throws(CommandLineError) in try OSCService.Running(setup, session: engine) }
        let stop = StopSignals()
        let status = FileOutput.standardOutput.isTerminal && !plan.quiet ? StatusLine() : nil
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
        let output: PulseOutput
        do throws(PulseError) {
            output = try PulseOutput(
                mixer: engine.mixer, device: live.device, latency: live.latency)
        } catch {
            osc?.server.stop()
            engine.stop()
            var hint = serving == nil ? "; render to a file with --output FILE.wav" : ""
            if case .noSuchSink = error { hint = "" }
            throw CommandLineError(.unavailable, "\(error.description)\(hint)")
        }
        engine.attach(output: output)
        service?.attach(output: output)
        let buffer = output.bufferFrames
        // klick's keys when standard input is a terminal; the terminal is put back however the command ends.
        let controls = KeyControls(session: engine, volume: min(1, Float(cbrt(Double(plan.gain)))))
        let keys = TerminalKeys.start { controls.handle($0) }
        defer { keys?.restore() }

        var lost = false
        while stop.signalReceived == nil, !controls.quitRequested, !(service?.quitRequested ?? false),
            service != nil || !engine.isFinished || controls.userStopped
        {
            if output.isLost {
                lost = true
                break
            }
            usleep(service == nil ? 50_000 : 10_000)
        }
        osc?.server.stop()
        if live.verbose, !lost { output.measureLatency() }
        engine.stop()
        if !lost {
            // The scheduler's timer is cancelled, so this thread may now push to the ring.
            if !waitUntilSilent(engine.mixer, output: output, milliseconds: 150) {
                engine.mixer.commands.push(MixerCommand.fadeOutAll(at: engine.mixer.framePosition))
                waitUntilSilent(engine.mixer, output: output, milliseconds: 50)
            }
            output.drain()
        }
        output.close()
        status?.finish()
        if live.verbose { report(engine: engine, output: output, buffer: buffer, service: service) }
        if lost {
            throw CommandLineError(
                .unavailable, "\(PulseError.connectionLost(server: output.serverDescription)); stopped")
        }
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

/// Waits until no voice sounds, the server is lost, or the time is up. Returns whether the mixer fell silent.
@discardableResult
private func waitUntilSilent(_ mixer: Mixer, output: PulseOutput, milliseconds: Int64) -> Bool {
    let deadline = monotonicNanoseconds() + milliseconds * 1_000_000
    while !mixer.isSilent, monotonicNanoseconds() < deadline, !output.isLost { usleep(2_000) }
    return mixer.isSilent
}

func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}
