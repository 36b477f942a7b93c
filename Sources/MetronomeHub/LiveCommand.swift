import MetronomeApp
import MetronomeEngine
import MetronomeJack
import MetronomeLink
import MetronomeLive
import MetronomeMIDI
import MetronomeMusic
import MetronomePulse
import MetronomeService
import MetronomeWeb

/// A live command composed from its typed settings: what `metronome 120`, `play`, `arp`, `chord` and `serve` play
/// through PulseAudio or JACK, with every clock and control the settings name — Link joined before the first click,
/// the JACK transport followed or led, MIDI clock and notes out, notes in for the instrument or the arpeggiator, the
/// OSC service and the web remote, the practice log's record of the run — run, reconnected and stopped on one path
/// (`LiveRun`).
///
/// The caller words nothing and decides nothing here but what a terminal shows: it gives the lines to print
/// (`say`), the signals that stop the run, what the status line draws and what keys do (`LiveCommand.Terminal`).
/// Every error is the command line's (`CommandLineError`: its line and exit code); on each way out, what was
/// started is stopped (Link left, the OSC socket closed).
///
/// Plays until the map ends, `--bars`/`--duration` runs out, or a stop arrives; serving, until a quit (OSC, keys, a
/// signal). On a stop it schedules nothing new, lets the sounding click finish (fading it if it is still going after
/// 150 ms), drains the output and returns. If the server or the sink goes away while playing, the beat is kept on
/// the host clock and the output reconnected (or, with `--no-reconnect`, the run ends with exit 69).
public struct LiveCommand {
    /// What a terminal brings to the run (all optional): where lines go, the stop signals, the status line and keys.
    public struct Terminal {
        /// Writes one or more whole lines (each ending in a newline) for the user: standard error for the CLI.
        public var say: (String) -> Void = { _ in }
        /// Whether a stop (a signal) has arrived: polled while joining Link and waiting on the server. Any thread.
        public var isCancelled: @Sendable () -> Bool = { false }
        /// Makes the status line for the run; nil for none.
        public var statusLine: () -> (any BeatDisplay)? = { nil }
        /// Called once the first sound is on its way, with the controls keys act on (klick's keys at a terminal) and,
        /// playing a setlist, its player (the keys that switch songs).
        public var started: (SessionControls, SetlistPlayer?) -> Void = { _, _ in }
        /// Writes one whole line from any thread: the practice log's warning, from its writer's queue (standard
        /// error for the CLI).
        public var warn: @Sendable (String) -> Void = { _ in }

        public init() {}
    }

    /// The plan to play.
    public var plan: ClickPlan
    /// The live options: the output, latency, reconnection, JACK and Link.
    public var live: LiveSettings
    /// Serving (`metronome serve`): the OSC service and the web remote; nil for a command that plays and ends.
    public var serving: ServeSetup?
    /// A JACK client opened already (to read the server's period while checking options); the run plays through it.
    public var jackClient: JackClient?
    /// A setlist to play instead of `plan` alone (`SetlistPlayer`); `plan` is then its first song's.
    public var setlist: SetlistPlan?

    public init(
        plan: ClickPlan, live: LiveSettings, serving: ServeSetup? = nil, jackClient: JackClient? = nil,
        setlist: SetlistPlan? = nil
    ) {
        self.plan = plan
        self.live = live
        self.serving = serving
        self.jackClient = jackClient
        self.setlist = setlist
    }

    /// A run of a setlist: its first song's plan as `plan`, cut at its bars (`SetlistPlayer.liveMap`).
    public init(
        setlist: SetlistPlan, live: LiveSettings, serving: ServeSetup? = nil, jackClient: JackClient? = nil
    ) {
        self.init(
            plan: SetlistPlayer.firstPlan(setlist), live: live, serving: serving, jackClient: jackClient,
            setlist: setlist)
    }

    /// Composes the run and plays it to its end.
    /// - Parameter terminal: what the caller shows and how it stops the run.
    /// - Throws: the command line's error (a refused option 64, a server or port unavailable 69, Ctrl-C while
    ///   connecting 130); what was started is stopped first.
    public func run(_ terminal: Terminal) throws(CommandLineError) {
        let say = terminal.say
        if let refusal = Self.refusal(setlist: setlist != nil, live: live) { throw refusal }
        // Following a MIDI clock, Link (--link, or /metronome/link 1 serving) is led by the clock, never followed.
        let followsClock = live.jack?.followsMIDIClock == true
        // With --link: the session is joined first, and the plan takes its tempo and waits for its start.
        var link: LinkJoin? = try live.link.map { settings throws(CommandLineError) in
            followsClock
                ? try LinkJoin.leading(settings, plan: self.plan)
                : try LinkJoin.join(settings, plan: self.plan, isCancelled: terminal.isCancelled)
        }
        let joined = link != nil && !followsClock
        // Serving, Link is there to be switched on over OSC (`/metronome/link 1`) even without --link; if it cannot
        // start, the service runs without it (`/metronome/link` then says Link is not available).
        if link == nil, serving != nil {
            do throws(CommandLineError) {
                link = try LinkJoin.idle(plan: self.plan)
            } catch {
                say("metronome: \(error.message); /metronome/link is not available\n")
            }
        }
        // Every way out from here stops what was started: the OSC socket, then Link.
        var started: [any LiveCompanion] = []
        func unwinding<Value>(_ step: () throws(CommandLineError) -> Value) throws(CommandLineError) -> Value {
            do { return try step() } catch {
                for companion in started.reversed() { companion.stop() }
                link?.stop()
                throw error
            }
        }
        var plan = try unwinding { () throws(CommandLineError) in
            joined ? try link?.prepared(self.plan) ?? self.plan : self.plan
        }
        // Following a MIDI clock, the map waits for the clock's Start (or Continue).
        if followsClock { plan.waits = true }
        let client = try unwinding { () throws(CommandLineError) in try jack() }
        let engine = try unwinding { () throws(CommandLineError) in try session(plan, period: client?.periodFrames) }
        let songs = setlist.map { SetlistPlayer(plan: $0, session: engine) }
        // Following a MIDI clock, what arrives on midi_in leads tempo, phase, play and stop. Serving through JACK
        // (the transport not locked), it is listened to from the start and leads when /metronome/follow says so.
        let switchable = serving != nil && live.jack != nil && live.jack?.transport == nil
        let clock =
            followsClock || switchable
            ? MIDIClockFollower(
                inbox: MIDIInbox(capacity: 4096), framesPerSecond: Double(plan.sampleRate.framesPerSecond),
                leads: followsClock) : nil
        // Link beside the clock: led while the clock leads (a LinkLeader), followed otherwise (a LinkCompanion).
        let leader = followsClock || switchable ? link.map { LinkLeader(link: $0.link, leading: followsClock) } : nil
        // The JACK transport beside the clock (--transport master): led by it, its timebase master.
        let timebase =
            clock != nil && live.jack?.clockLeadsTransport == true
            ? ClockTimebase(framesPerSecond: Double(plan.sampleRate.framesPerSecond), leading: followsClock) : nil
        let clockSwitch =
            switchable
            ? clock.map { ClockLeadSwitch(clock: $0, link: link?.link, leader: leader, timebase: timebase) } : nil
        let osc = try unwinding { () throws(CommandLineError) in
            try serving.map { setup throws(CommandLineError) in
                var setup = setup
                setup.settings.link = link?.link
                if let clock { setup.settings.midiClock = { clock.status } }
                setup.settings.clockLead = clockSwitch
                setup.settings.setlist = songs
                return try OSCServiceHost.start(setup, session: engine, say: say)
            }
        }
        osc.map { started.append($0) }
        // The web remote drives the same service: it starts once the OSC socket is bound.
        let web = try unwinding { () throws(CommandLineError) in
            try serving?.web.map { setup throws(CommandLineError) in
                try WebRemote.start(setup, service: osc!.service, say: say)
            }
        }
        web.map { started.append($0) }
        let midi = try unwinding { () throws(CommandLineError) in try midiIn(engine, plan: plan, set: songs != nil) }
        // A set's songs switched from midi_in: Program Change, and the switches `--midi-next`/`--midi-previous` name.
        let setMIDI = songs.flatMap { songs in
            midi.inbox.map { inbox in
                let switches = live.jack?.setlistSwitches ?? (SetlistMIDI.defaultNext, SetlistMIDI.defaultPrevious)
                return SetlistMIDIFeed(
                    inbox: inbox, songs: songs, mapping: SetlistMIDI(next: switches.next, previous: switches.previous))
            }
        }
        let status = terminal.statusLine()
        let feed = status.map { display in
            LiveStatusFeed(
                display: display, session: engine, startVolume: plan.volume,
                clock: joinedWords(clockWords(joined ? link : nil, midiClock: clock, led: leader?.link), songs))
        }
        // Locked to the JACK transport, the map's frames are the transport's from the first cycle on.
        let transportLock = live.jack?.transport.map { TransportLock(followsTimebase: $0 == .follow) }
        let transportFollower = transportLock.map(TransportFollower.init(lock:))
        // The status line and OSC subscribers get each beat once it is heard; the web remote's pages as soon as it is
        // scheduled, to light it when it is heard. Kept until the run ends.
        let service = osc?.service
        var observations: [BeatObservation] = []
        if feed != nil || service != nil {
            observations.append(
                engine.beatPublisher.observe(.heard) { beat in
                    feed?.heard(beat)
                    service?.publish(beat)
                })
        }
        if let web { observations.append(engine.beatPublisher.observe(.scheduled) { beat in web.publish(beat) }) }
        // The practice log: its row written on its own queue, the beats heard only noted under a lock.
        let practice = live.practiceLog.flatMap { settings in
            PracticeLogCompanion.make(settings, plan: plan, session: engine, songs: songs, warn: terminal.warn)
        }
        if let practice { observations.append(practice.1) }
        // However the run ends, its last row is written before the command returns (and the process exits).
        defer { practice?.0.flush() }
        // Stopped in this order when the run ends (the OSC socket first, Link last).
        let linkCompanion: LinkCompanion? =
            followsClock ? nil : link.map { LinkCompanion(link: $0.link, joined: joined, play: !self.plan.waits) }
        var run = Run(
            engine: engine, volume: plan.volume, service: service, status: status, terminal: terminal, songs: songs)
        run.followers = ([transportFollower, clock] as [(any SessionFollower)?]).compactMap { $0 }
        // The status feed stops first: nothing is drawn after the line is finished.
        run.companions =
            [feed as (any LiveCompanion)?].compactMap { $0 } + started
            + ([
                clockSwitch, linkCompanion, leader, setMIDI,
                timebase.flatMap { timebase in clock.map { ClockTimebaseLead(timebase: timebase, clock: $0) } },
                practice?.0,
            ] as [(any LiveCompanion)?])
            .compactMap { $0 }
        run.observations = observations
        if let jack = live.jack {
            let ports: JackPorts = jack.noConnect ? .none : jack.connect.map { .named($0) } ?? .physical
            let driver = JackDriver(
                name: jack.clientName, ports: ports, midiConnections: jack.midiConnect, transportLock: transportLock,
                timebaseMaster: jack.transport == .master, midiInput: midi.keyboard == nil ? midi.inbox : nil,
                keyboard: midi.keyboard, clockInput: clock?.inbox, clockTimebase: timebase, opened: client)
            try play(driver, run) { error in CommandLineError(.unavailable, error.description) }
        } else {
            try play(PulseDriver(device: live.device, latency: live.latency), run) { error in
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

    /// What the status line says of the clock followed: Link's peers now, the MIDI clock's state and tempo (and the
    /// Link session it leads, while on), or the JACK transport's mode; nil for none.
    private func clockWords(
        _ link: LinkJoin?, midiClock: MIDIClockFollower?, led: LinkSession?
    ) -> @Sendable () -> String? {
        let peers: @Sendable (LinkSession) -> String = { "\($0.peers) \($0.peers == 1 ? "peer" : "peers")" }
        if let session = link?.link { return { "Link: \(peers(session))" } }
        if let midiClock {
            let transport = live.jack?.clockLeadsTransport == true ? ", leading the JACK transport" : ""
            return {
                guard midiClock.leads else { return nil }
                let words = midiClock.status.words + transport
                guard let led, led.isEnabled else { return words }
                return "\(words), leading Link: \(peers(led))"
            }
        }
        let words: String? =
            switch live.jack?.transport {
            case .startStop: "JACK transport"
            case .master: "JACK transport, timebase master"
            case .follow: "JACK transport, following the timebase"
            case nil: nil
            }
        return { words }
    }

    /// The live settings a run refuses for what it plays, or nil: a set is not locked to the JACK transport (whose
    /// frame is the song's: a switch cannot put each song's top where the transport is), and only a set takes
    /// `--midi-next` and `--midi-previous`. (The CLI asks before it opens a JACK client, so the mistake is 64 with no
    /// server too.) Link and a MIDI clock lead a set: each switch lands on their bar (`FollowerPass.launchLoads`).
    public static func refusal(setlist: Bool, live: LiveSettings) -> CommandLineError? {
        if !setlist, live.jack?.setlistSwitches != nil {
            return CommandLineError(
                .usage, "--midi-next and --midi-previous apply only to a setlist (play gig.setlist, serve gig.setlist)")
        }
        guard setlist, live.jack?.transport != nil else { return nil }
        return CommandLineError(
            .usage,
            "--transport does not apply to a setlist: the JACK transport's position is the song's, and each song "
                + "starts from its own top (--link and --follow midi-clock keep a set in phase)")
    }

    /// The clock's words and the set's song ("song 2/5 Ballad, next: Backing"), as the status line shows them.
    private func joinedWords(
        _ clock: @escaping @Sendable () -> String?, _ songs: SetlistPlayer?
    ) -> @Sendable () -> String? {
        guard let songs else { return clock }
        return { [clock(), songs.status.words].compactMap { $0 }.joined(separator: "  ") }
    }

    /// The plan's live session, its lookahead covering the output's latency (through JACK, two of the server's periods:
    /// `JackOutput.coveredLatency`).
    private func session(_ plan: ClickPlan, period: Int?) throws(CommandLineError) -> Session {
        if live.jack?.transport != nil, let frames = plan.frameCount, frames != plan.map.endFrame {
            throw CommandLineError(
                .usage,
                "--duration and --bars do not apply with --transport: the JACK transport decides when the click plays "
                    + "(quit with q or Ctrl-C)")
        }
        if live.jack?.followsMIDIClock == true, let frames = plan.frameCount, frames != plan.map.endFrame {
            throw CommandLineError(
                .usage,
                "--duration and --bars do not apply with --follow midi-clock: the clock's Start and Stop decide when "
                    + "the click plays (quit with q or Ctrl-C)")
        }
        let configuration: MixerConfiguration
        do { configuration = try plan.mixerConfiguration() } catch {
            throw CommandLineError(.usage, error.description)
        }
        var timing = live
        if live.lookahead == nil, let period {
            timing.latency = JackOutput.coveredLatency(periodFrames: period, sampleRate: plan.sampleRate)
        }
        do {
            let lookahead = timing.lookaheadFrames(sampleRate: plan.sampleRate)
            if let setlist {
                return try SetlistPlayer.session(
                    setlist, first: plan, configuration: configuration, lookahead: lookahead)
            }
            return try plan.session(configuration: configuration, lookahead: lookahead, live: true)
        } catch {
            throw CommandLineError(error)
        }
    }

    /// The JACK client to play through: the one opened already, else a new one (the server unavailable is 69); nil
    /// without JACK.
    private func jack() throws(CommandLineError) -> JackClient? {
        guard let jack = live.jack else { return nil }
        if let jackClient { return jackClient }
        do { return try JackClient(name: jack.clientName) } catch {
            throw CommandLineError(.unavailable, error.description)
        }
    }

    /// Through JACK: midi_out carries MIDI clock and transport from the first pass (Start on the first beat), and
    /// the clicks' notes with `--midi-notes`; notes arriving on midi_in play the command's instrument on JACK's
    /// process thread, each on the frame it arrives on, or feed `arp --midi-in`.
    private func midiIn(
        _ engine: Session, plan: ClickPlan, set: Bool
    ) throws(CommandLineError) -> (inbox: MIDIInbox?, keyboard: LiveKeyboard?) {
        guard let jack = live.jack else { return (nil, nil) }
        engine.sendMIDIClock()
        if jack.midiNotes {
            engine.sendMIDINotes()
            engine.sendMIDIClickNotes { event in
                MIDIClickNotes.generalMIDI.note(for: event).map { ($0.key, $0.velocity) }
            }
        }
        let inbox = MIDIInbox()
        // A set's midi_in switches its songs (`SetlistMIDIFeed`): no instrument plays its notes.
        if set { return (inbox, nil) }
        let track: NotePlayer.Track
        do { track = try plan.midiInputTrack ?? Voicing().track(sampleRate: plan.sampleRate) } catch {
            throw CommandLineError(.unavailable, "\(error)")
        }
        if let arpeggio = plan.midiInputArpeggio {
            let player = NotePlayer(tracks: [track], source: NoteBatches([]), sampleRate: plan.sampleRate)
            engine.arpeggiateMIDIInput(inbox, on: player, settings: arpeggio.settings, latch: arpeggio.latch)
            return (inbox, nil)
        }
        let keyboard = LiveKeyboard(track: track, sampleRate: plan.sampleRate, echoesMIDI: jack.midiNotes)
        engine.playMIDIInput(on: keyboard)
        return (inbox, keyboard)
    }

    /// What `run` has set up when the output opens.
    private struct Run {
        let engine: Session
        let volume: Float
        let service: OSCService?
        let status: (any BeatDisplay)?
        let terminal: Terminal
        /// The setlist's player, playing one.
        let songs: SetlistPlayer?
        /// What steers the session from outside (a JACK transport lock).
        var followers: [any SessionFollower] = []
        /// What runs beside it: the OSC service, the web remote, Link (`LiveCompanion`), stopped in this order.
        var companions: [any LiveCompanion] = []
        /// The beat observers of the status line, the OSC service and the web remote.
        var observations: [BeatObservation] = []
    }

    /// Plays `context` through `driver` (`LiveRun`: a refusal is `refusal`'s error) until the end, a stop or a quit,
    /// keeping the beat through a server that goes away; says the report with `--verbose`.
    private func play<Driver: OutputDriver>(
        _ driver: Driver, _ context: Run, refusal: (Driver.Backend.Failure) -> CommandLineError
    ) throws(CommandLineError) where Driver.Backend: ReportingOutput {
        let (engine, service, say) = (context.engine, context.service, context.terminal.say)
        var run = LiveRun(session: engine, driver: driver)
        run.followers = context.followers
        run.companions = context.companions
        run.observations = context.observations
        run.reconnectTimeout = live.reconnectTimeout
        // The lookahead covers the latency granted, which may be more than the one asked for (pipewire-pulse).
        run.coversGrantedLatency = live.lookahead == nil
        run.pollInterval = .milliseconds(service == nil ? 50 : 10)
        run.verbose = live.verbose
        let controls = SessionControls(session: engine, volume: context.volume)
        // JACK's latency is its period and the ports'; PulseAudio's the target asked for.
        let rate = Int64(engine.mixer.configuration.sampleRate.framesPerSecond)
        let (live, terminal) = (self.live, context.terminal)
        let result: LiveRun<Driver>.Result
        do throws(Driver.Backend.Failure) {
            result = try run.run(
                isCancelled: terminal.isCancelled,
                started: { _ in terminal.started(controls, context.songs) },
                // A set plays on until its last song is over (a song that waits for a switch does not end it);
                // serving, only a practice timer's end ends the run (a served pattern's end does not), as it ends a
                // set.
                playsToEnd: {
                    !controls.userStopped
                        && (engine.practiceEnded || (service == nil && (context.songs?.isOver ?? true)))
                },
                shouldStop: {
                    terminal.isCancelled() || controls.quitRequested || (service?.quitRequested ?? false)
                },
                latency: { output in
                    live.jack == nil ? live.latency : .milliseconds((output.latencyFrames ?? 0) * 1000 / rate)
                },
                onEvent: { event in
                    switch event {
                    case .lost(let loss):
                        let timeout = LiveCommand.text(live.reconnectTimeout ?? .zero)
                        say("metronome: \(loss.description); retrying for \(timeout) (--reconnect-timeout)\n")
                    case .back(let fresh):
                        say("metronome: \(fresh.backLine)\n")
                    case .connected(let made):
                        // Made late, after a return: said at once, as the return was (the port's client came back).
                        say(made.map { "metronome: connected \($0.from) to \($0.to)\n" }.joined())
                    case .none, .gaveUp: break
                    }
                })
        } catch {
            throw refusal(error)
        }
        context.status?.finish()
        if live.verbose { say(result.report.map { "metronome: \($0)\n" }.joined()) }
        if case .gaveUp(let reason) = result.ending {
            let message =
                live.reconnectTimeout.map {
                    "no sound server for \(LiveCommand.text($0)) (--reconnect-timeout): \(reason.description); stopped"
                } ?? "\(reason.description); stopped"
            throw CommandLineError(.unavailable, message)
        }
    }

    /// "30 s", "2.5 s".
    static func text(_ duration: Duration) -> String {
        let seconds = duration.inSeconds
        return seconds == seconds.rounded() ? "\(Int64(seconds)) s" : "\(seconds) s"
    }
}

/// What shows the live status — each beat as it is heard, and a pause, a stop, the volume between beats
/// (`LiveStatus`) — and ends when the run does: the CLI's status line on a terminal.
public protocol BeatDisplay: Sendable {
    /// Shows the status (from the session's queue or the status feed's; never the audio thread).
    func show(_ status: LiveStatus)
    /// The run ended: leaves the display as the user should find it.
    func finish()
}
