import MetronomeJack
import MetronomeKit
import MetronomeLink
import MetronomePulse
import MetronomeService
import MetronomeWeb

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
    let live: LiveSettings
    var serving: ServeSetup? = nil
    /// The JACK client `LiveOptions.adopting` opened (its server's period is the output's latency); the first client
    /// the run plays through.
    var jackClient: JackClient? = nil

    func run() throws(CommandLineError) {
        // Installed first: a stop during Link's join window or the server's answer ends the command as any other.
        let stop = StopSignals()
        // With --link: the session is joined first, and the plan takes its tempo and waits for its start.
        var link = try live.link.map { settings throws(CommandLineError) in
            try LinkJoin.join(settings, plan: job.plan)
        }
        let joined = link != nil
        // Serving, Link is there to be switched on over OSC (`/metronome/link 1`) even without --link; if it cannot
        // start, the service runs without it (`/metronome/link` then says Link is not available).
        if link == nil, serving != nil {
            do throws(CommandLineError) {
                link = try LinkJoin.idle(plan: job.plan)
            } catch {
                FileOutput.standardError.write("metronome: \(error.message); /metronome/link is not available\n")
            }
        }
        let plan: ClickPlan
        do throws(CommandLineError) {
            plan = joined ? try link?.prepared(job.plan) ?? job.plan : job.plan
        } catch {
            link?.stop()
            throw error
        }
        if live.jack?.transport != nil, let frames = plan.frameCount, frames != plan.map.endFrame {
            link?.stop()
            throw CommandLineError(
                .usage,
                "--duration and --bars do not apply with --transport: the JACK transport decides when the click plays "
                    + "(quit with q or Ctrl-C)")
        }
        let configuration = try mixerConfiguration(plan)
        // Through JACK the output's latency is the server's period: the lookahead covers it as it covers PulseAudio's.
        var timing = live
        var jackClient = self.jackClient
        if let jack = live.jack, jackClient == nil {
            do { jackClient = try JackClient(name: jack.clientName) } catch {
                link?.stop()
                throw CommandLineError(.unavailable, error.description)
            }
        }
        if live.lookahead == nil, let period = jackClient?.periodFrames {
            timing.latency = .nanoseconds(Int64(period) * 1_000_000_000 / Int64(plan.sampleRate.framesPerSecond))
        }
        let lookahead = timing.lookaheadFrames(sampleRate: plan.sampleRate)
        let engine = try session(plan, configuration: configuration, lookahead: lookahead)
        let osc: OSCServiceHost?
        do throws(CommandLineError) {
            osc = try serving.map { setup throws(CommandLineError) in
                var setup = setup
                setup.settings.link = link?.link
                return try OSCServiceHost.start(setup, session: engine)
            }
        } catch {
            link?.stop()
            throw error
        }
        // The web remote drives the same service: it starts once the OSC socket is bound.
        let web: WebRemote?
        do throws(CommandLineError) {
            web = try serving?.web.map { setup throws(CommandLineError) in
                try WebRemote.start(setup, service: osc!.service)
            }
        } catch {
            osc?.server.stop()
            link?.stop()
            throw error
        }
        var peers: (@Sendable () -> Int)? = nil
        if joined, let session = link?.link { peers = { session.peers } }
        let status = FileOutput.standardOutput.isTerminal && !job.quiet ? StatusLine(peers: peers) : nil
        let service = osc?.service
        // With JACK, midi_out carries MIDI clock and transport from the first pass (Start on the first beat).
        if let jack = live.jack {
            engine.sendMIDIClock()
            if jack.midiNotes {
                engine.sendMIDINotes()
                engine.sendMIDIClickNotes { event in
                    MIDIClickNotes.generalMIDI.note(for: event).map { ($0.key, $0.velocity) }
                }
            }
        }
        // Through JACK, notes arriving on midi_in play the command's instrument, or feed `arp --midi-in`.
        let midiInbox = live.jack == nil ? nil : MIDIInbox()
        var keyboard: LiveKeyboard?
        if let midiInbox {
            let track: NotePlayer.Track
            do { track = try plan.midiInputTrack ?? Voicing().track(sampleRate: plan.sampleRate) } catch {
                link?.stop()
                throw CommandLineError(.unavailable, "\(error)")
            }
            if let arpeggio = plan.midiInputArpeggio {
                let player = NotePlayer(tracks: [track], source: NoteBatches([]), sampleRate: plan.sampleRate)
                engine.arpeggiateMIDIInput(midiInbox, on: player, settings: arpeggio.settings, latch: arpeggio.latch)
            } else {
                // Played on JACK's process thread, each note on the frame it arrives on.
                keyboard = LiveKeyboard(
                    track: track, sampleRate: plan.sampleRate, echoesMIDI: live.jack?.midiNotes == true)
                keyboard.map(engine.playMIDIInput(on:))
            }
        }
        // Locked to the JACK transport, the map's frames are the transport's from the first cycle on.
        let transportLock = live.jack?.transport.map { TransportLock(followsTimebase: $0 == .follow) }
        let transportFollower = transportLock.map(TransportFollower.init(lock:))
        // The status line and OSC subscribers get each beat once it is heard; the web remote's pages as soon as it is
        // scheduled, to light it when it is heard. Kept until the run ends (`play` cancels them).
        var observations: [BeatObservation] = []
        if status != nil || service != nil {
            observations.append(
                engine.beatPublisher.observe(.heard) { beat in
                    status?.show(beat)
                    service?.publish(beat)
                })
        }
        if let web { observations.append(engine.beatPublisher.observe(.scheduled) { beat in web.publish(beat) }) }
        // Stopped in this order when the run ends (the OSC socket first, Link last).
        let linkCompanion = link.map { LinkCompanion(link: $0.link, joined: joined, play: !job.plan.waits) }
        let companions: [any LiveCompanion] = [osc as (any LiveCompanion)?, web, linkCompanion].compactMap { $0 }
        let context = Playing(
            engine: engine, plan: plan, service: service, status: status,
            followers: transportFollower.map { [$0] } ?? [], companions: companions, observations: observations)
        if let jack = live.jack {
            let ports: JackPorts = jack.noConnect ? .none : jack.connect.map { .named($0) } ?? .physical
            let driver = JackDriver(
                name: jack.clientName, ports: ports, midiConnections: jack.midiConnect, transportLock: transportLock,
                timebaseMaster: jack.transport == .master, midiInput: keyboard == nil ? midiInbox : nil,
                keyboard: keyboard, opened: jackClient)
            try play(driver, context, stop) { error in
                CommandLineError(.unavailable, error.description)
            }
        } else {
            try play(PulseDriver(device: live.device, latency: live.latency), context, stop) { error in
                switch error {
                case .cancelled: return CommandLineError(.interrupted, error.description)
                case .noSuchSink: return CommandLineError(.unavailable, error.description)
                default:
                    let hint = serving == nil ? "; render to a file with --output FILE.wav" : ""
                    return CommandLineError(.unavailable, "\(error.description)\(hint)")
                }
            }
        }
    }

    /// What `run` has set up when the output opens.
    struct Playing {
        let engine: Session
        let plan: ClickPlan
        let service: OSCService?
        let status: StatusLine?
        /// What steers the session from outside (a JACK transport lock).
        let followers: [any SessionFollower]
        /// What runs beside it: the OSC service, the web remote, Link (`LiveCompanion`).
        let companions: [any LiveCompanion]
        /// The beat observers of the status line, the OSC service and the web remote.
        let observations: [BeatObservation]
    }

    /// Plays `context` through `driver` (`LiveRun`: a refusal is `refusal`'s error) until the end, a stop or a quit,
    /// keeping the beat through a server that goes away, with klick's keys on a terminal; prints the report.
    private func play<Driver: OutputDriver>(
        _ driver: Driver, _ context: Playing, _ stop: borrowing StopSignals,
        refusal: (Driver.Backend.Failure) -> CommandLineError
    ) throws(CommandLineError) where Driver.Backend: ReportingOutput {
        let (engine, service, status) = (context.engine, context.service, context.status)
        var run = LiveRun(session: engine, driver: driver)
        run.followers = context.followers
        run.companions = context.companions
        run.observations = context.observations
        run.serverTimeout = ClickLive.serverTimeout
        run.reconnectTimeout = live.reconnectTimeout
        // The lookahead covers the latency granted, which may be more than the one asked for (pipewire-pulse).
        run.coversGrantedLatency = live.lookahead == nil
        run.pollInterval = .milliseconds(service == nil ? 50 : 10)
        run.verbose = live.verbose
        // klick's keys when standard input is a terminal, from the first sound; the terminal is put back however the
        // command ends.
        let controls = SessionControls(session: engine, volume: context.plan.volume)
        var keys: TerminalKeys?
        defer { keys?.restore() }
        // JACK's latency is its period and the ports'; PulseAudio's the target asked for.
        let rate = Int64(engine.mixer.configuration.sampleRate.framesPerSecond)
        let result: LiveRun<Driver>.Result
        do throws(Driver.Backend.Failure) {
            result = try run.run(
                isCancelled: { StopSignals.wasReceived },
                started: { _ in
                    keys = TerminalKeys.start { key in
                        guard let action = KeyAction(key) else { return }
                        if action == .help { FileOutput.standardError.write("\r\n" + KeyAction.summary + "\r\n") }
                        controls.perform(action)
                    }
                },
                playsToEnd: { service == nil && !controls.userStopped },
                shouldStop: {
                    stop.signalReceived != nil || controls.quitRequested || (service?.quitRequested ?? false)
                },
                latency: { output in
                    live.jack == nil ? live.latency : .milliseconds((output.latencyFrames ?? 0) * 1000 / rate)
                },
                onEvent: { event in
                    switch event {
                    case .lost(let loss):
                        let timeout = ClickLive.text(live.reconnectTimeout ?? .zero)
                        FileOutput.standardError.write(
                            "metronome: \(loss.description); retrying for \(timeout) (--reconnect-timeout)\n")
                    case .back(let fresh):
                        FileOutput.standardError.write("metronome: \(fresh.backLine)\n")
                    case .connected(let made):
                        // Made late, after a return: said at once, as the return was (the port's client came back).
                        FileOutput.standardError.write(
                            made.map { "metronome: connected \($0.from) to \($0.to)\n" }.joined())
                    case .none, .gaveUp: break
                    }
                })
        } catch {
            throw refusal(error)
        }
        status?.finish()
        if live.verbose { FileOutput.standardError.write(result.report.map { "metronome: \($0)\n" }.joined()) }
        if case .gaveUp(let reason) = result.ending {
            let message =
                live.reconnectTimeout.map {
                    "no sound server for \(ClickLive.text($0)) (--reconnect-timeout): \(reason.description); stopped"
                } ?? "\(reason.description); stopped"
            throw CommandLineError(.unavailable, message)
        }
    }

    /// The longest a server may take to answer a connection or accept a stream.
    static let serverTimeout: Duration = .seconds(5)

    /// "30 s", "2.5 s".
    static func text(_ duration: Duration) -> String {
        let seconds = duration.inSeconds
        return seconds == seconds.rounded() ? "\(Int64(seconds)) s" : "\(seconds) s"
    }
}
