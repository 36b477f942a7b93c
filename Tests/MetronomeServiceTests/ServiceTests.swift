import MetronomeApp
import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import MetronomeOSC
import MetronomeTestSupport
import Synchronization
import Testing

@testable import MetronomeLive
@testable import MetronomeService

/// Host time of frame 0 on the test's virtual output clock.
private let origin: Int64 = 1_000_000_000_000

/// A virtual output: frame 0 is heard at `origin`, 48,000 frames a second.
private final class VirtualOutput: ServiceOutput {
    var mapping: ClockMapping? {
        ClockMapping(frame: 0, hostTime: HostTime(nanoseconds: origin), framesPerSecond: 48_000)
    }
    var underrunCount: Int { 3 }
}

/// Single-frame clicks: accent 0.8, normal 0.6 (onsets read back exactly).
private func impulses() -> ClickSet {
    ClickSet(
        name: "impulses", summary: "test impulses", accent: SampleBuffer(channels: [[0.8]], name: "accent"),
        normal: SampleBuffer(channels: [[0.6]], name: "normal"),
        subdivision: SampleBuffer(channels: [[0.4]], name: "subdivision"),
        countIn: SampleBuffer(channels: [[0.7]], name: "count-in"))
}

/// Keeps every sample of a mono render.
private final class Samples: AudioSink {
    private(set) var values: [Float] = []
    func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws {
        values.append(contentsOf: UnsafeBufferPointer(start: samples, count: frameCount))
    }
    /// Frames of the click impulses (exact values 0.8 and 0.6).
    var clicks: [Int] { values.indices.filter { values[$0] == 0.8 || values[$0] == 0.6 } }
}

/// An offline session at 120 BPM 4/4 (a beat every 24,000 frames) with a service whose replies are kept and whose
/// timed bundles wait for the test to run them.
private final class Harness: @unchecked Sendable {
    // @unchecked: used from the test's thread only; `sent` and `waiting` are behind locks.
    let session: Session
    let service: OSCService
    let sink = Samples()
    let sent = Locked<[(OSCPacket, OSCEndpoint)]>([])
    let waiting = Locked<[(wait: Double, run: @Sendable () -> Void)]>([])
    static let client = OSCEndpoint.loopback(port: 9000)

    init(
        map: TempoMap? = nil, clickGain: Float = 1, patterns: [String: TempoMap] = [:],
        midiClock: MIDIClockFollower? = nil, clockLead: (any ServiceClockLead)? = nil, link: (any ServiceLink)? = nil
    ) throws {
        let configuration = try MixerConfiguration(channels: 1)
        session = try Session(
            map: map ?? TempoMap.steady(tempo: BPM(120)), clicks: impulses(), configuration: configuration,
            clickGain: clickGain)
        let bank = InstrumentSynthesizer.bank(.piano, sampleRate: .standard)
        var settings = ServiceSettings(bank: bank, patterns: MapsByName(maps: patterns))
        if let midiClock {
            session.add(follower: midiClock)
            settings.midiClock = { midiClock.status }
        }
        settings.clockLead = clockLead
        settings.link = link
        let sent = self.sent
        service = try OSCService(session: session, settings: settings) { packet, endpoint in
            sent.withLock { $0.append((packet, endpoint)) }
        }
        service.attach(output: VirtualOutput())
        let waiting = self.waiting
        service.deferral.withLock { $0 = { wait, run in waiting.withLock { $0.append((wait, run)) } } }
    }

    /// Renders until the mixer's position is `frame` (blocks of 1000 frames: scheduled 2000 frames ahead).
    func render(to frame: Int) throws {
        let count = SampleTime(frame) - session.mixer.framePosition
        if count > 0 { try session.render(frameCount: count, to: sink, blockFrames: 1000) }
    }

    func send(_ address: String, _ arguments: [OSCArgument] = [], from sender: OSCEndpoint = client) {
        service.handle(.message(OSCMessage(address, arguments)), from: sender)
    }

    /// Runs the timed bundles waiting.
    func runWaiting() {
        let due = waiting.withLock { list in
            defer { list = [] }
            return list
        }
        for item in due { item.run() }
    }

    var replies: [OSCMessage] {
        sent.withLock { list in
            list.compactMap { packet, _ in if case .message(let message) = packet { message } else { nil } }
        }
    }

    /// The state reply as a dictionary.
    func state() -> [String: OSCArgument] {
        sent.withLock { $0 = [] }
        send("/metronome/query")
        guard let reply = replies.last, reply.addressPattern == "/metronome/state" else { return [:] }
        var result: [String: OSCArgument] = [:]
        for index in stride(from: 0, to: reply.arguments.count - 1, by: 2) {
            if case .string(let key) = reply.arguments[index] { result[key] = reply.arguments[index + 1] }
        }
        return result
    }

    var applied: [Transport.Applied] { session.appliedCommands }
}

/// Patterns served from memory, by name.
private struct MapsByName: PatternLoading {
    let maps: [String: TempoMap]

    func map(named name: String, tempoScale: Double?, countIn: Int?, sampleRate: SampleRate)
        throws(PatternUnavailable) -> TempoMap
    {
        guard let map = maps[name] else { throw PatternUnavailable("no such pattern") }
        return map
    }
}

/// The time tag of a host time.
private func tag(_ nanoseconds: Int64) throws -> OSCTimeTag {
    try OSCTimeTag(monotonicNanoseconds: nanoseconds, unixOffsetNanoseconds: OSCService.unixOffset())
}

@Suite("The OSC service over an offline session")
struct ServiceTests {
    @Test("/metronome/tempo lands on the next beat (or bar, or now); ,i works as ,f; klick's set_tempo does the same")
    func tempo() throws {
        for (arguments, frame) in [
            ([OSCArgument.float32(90)], SampleTime(72_000)), ([.int32(90)], 72_000),
            ([.float32(90), .string("bar")], 96_000),
            ([.float64(90), .string("beat")], 72_000),
        ] {
            let harness = try Harness()
            try harness.render(to: 50_000)
            harness.send("/metronome/tempo", arguments)
            try harness.render(to: 200_000)
            #expect(harness.applied.last?.command == .setTempo(try BPM(90)))
            #expect(harness.applied.last?.frame == frame, "\(arguments)")
            // The grid goes on from the change at 90 BPM: 32,000 frames a beat.
            let clicks = harness.sink.clicks
            let index = try #require(clicks.firstIndex(of: Int(frame)))
            #expect(clicks[index + 1] - clicks[index] == 32_000)
        }
        let klick = try Harness()
        try klick.render(to: 50_000)
        klick.send("/klick/simple/set_tempo", [.float32(90)])
        try klick.render(to: 200_000)
        #expect(klick.applied.last?.command == .setTempo(try BPM(90)))
        #expect(klick.applied.last?.frame == 72_000)
    }

    @Test("A chord in a future-tagged bundle starts on the frame its time maps to, as a noteOn queued at that frame")
    func timedChord() throws {
        // Frame 100,000 is heard 2.083333… s after frame 0; the time tag's nanosecond rounds back to it.
        let harness = try Harness(clickGain: 0)
        try harness.render(to: 20_000)
        let at = origin + 2_083_333_333
        harness.service.handle(
            .bundle(OSCBundle(timeTag: try tag(at), [.message(OSCMessage("/metronome/chord", [.string("C")]))])),
            from: Harness.client)
        #expect(harness.waiting.withLock { $0.count } == 1)
        try harness.render(to: 60_000)
        harness.runWaiting()
        try harness.render(to: 150_000)
        #expect(harness.service.lateBundleCount == 0)

        // The same chord queued by hand on frame 100,000 and held 2 s.
        let reference = try Harness(clickGain: 0)
        let player = NotePlayer(
            tracks: [.init(bank: InstrumentSynthesizer.bank(.piano, sampleRate: .standard))],
            source: NoteBatches([]), sampleRate: .standard)
        try reference.session.add(player)
        for note in [60, 64, 67] { player.queue.noteOn(note, velocity: 100, at: 100_000, holdFrames: 96_000) }
        player.queue.commit()
        try reference.render(to: 150_000)
        #expect(harness.sink.values.firstIndex { $0 != 0 } == reference.sink.values.firstIndex { $0 != 0 })
        #expect(harness.sink.values == reference.sink.values)
        #expect(harness.sink.values[..<100_000].allSatisfy { $0 == 0 })
    }

    @Test("A future-tagged tempo change lands on the first beat at or after its frame; a bundle's commands together")
    func timedTempo() throws {
        let harness = try Harness()
        try harness.render(to: 20_000)
        // Frame 100,000 lies inside beat 5 (96,000): the change waits for beat 6 at 120,000; the meter for bar 3.
        let bundle = OSCBundle(
            timeTag: try tag(origin + 2_083_333_333),
            [
                .message(OSCMessage("/metronome/tempo", [.float32(60)])),
                .message(OSCMessage("/metronome/volume", [.float32(0.5)])),
            ])
        harness.service.handle(.bundle(bundle), from: Harness.client)
        try harness.render(to: 60_000)
        harness.runWaiting()
        try harness.render(to: 300_000)
        let applied = harness.applied.suffix(2)
        #expect(applied.map(\.command) == [.setTempo(try BPM(60)), .setVolume(0.5)])
        // The volume follows the tempo change it was bundled with (commands apply in order).
        #expect(applied.map(\.frame) == [120_000, 120_000])
        // Clicks from the change on are at half volume: every onset counts.
        let onsets = harness.sink.values.indices.filter { $0 >= 96_000 && harness.sink.values[$0] != 0 }
        #expect(Array(onsets.prefix(3)) == [96_000, 120_000, 168_000])
    }

    @Test("A bundle tagged in the past applies at once and is counted late")
    func lateBundle() throws {
        let harness = try Harness(clickGain: 0)
        try harness.render(to: 50_000)
        let until = Int(harness.session.scheduledUntil)
        harness.service.handle(
            .bundle(
                OSCBundle(
                    timeTag: try tag(origin + 500_000_000),
                    [.message(OSCMessage("/metronome/note", [.int32(60), .int32(100)]))])),
            from: Harness.client)
        #expect(harness.service.lateBundleCount == 1)
        #expect(harness.waiting.withLock { $0.isEmpty })
        try harness.render(to: 60_000)
        // Played at the first frame not yet scheduled when it came (the piano's first sample is 0).
        let first = try #require(harness.sink.values.firstIndex { $0 != 0 })
        #expect(first == until + 1)
        let state = harness.state()
        #expect(state["late"] == .int32(1))
        #expect(state["late_bundles"] == .int32(1))
        #expect(state["late_events"] == .int32(0))
    }

    @Test("Bad packets and messages are dropped and counted, with their reason, and change nothing")
    func dropped() throws {
        let harness = try Harness()
        try harness.render(to: 10_000)
        var expected = 0
        func check(_ error: String, _ body: () -> Void) {
            body()
            expected += 1
            #expect(harness.service.droppedCount == expected)
            #expect(harness.service.lastErrorMessage == error)
        }
        check(OSCError.packetSizeNotMultipleOfFour(size: 3).description) {
            harness.service.handle([1, 2, 3], from: Harness.client)
        }
        check(OSCError.packetEmpty.description) { harness.service.handle([], from: Harness.client) }
        check("a datagram longer than 65536 bytes") {
            harness.service.handle([0, 0, 0, 0], truncated: true, from: Harness.client)
        }
        check("/nope: unknown address") { harness.send("/nope") }
        check("/metronome/tempo: the tempo must be a number, got s \"fast\"") {
            harness.send("/metronome/tempo", [.string("fast")])
        }
        check("/metronome/tempo: takes f tempo [s when], got 0 arguments") { harness.send("/metronome/tempo") }
        check("/metronome/tempo: when must be now, beat or bar, got \"soon\"") {
            harness.send("/metronome/tempo", [.float32(100), .string("soon")])
        }
        check("/metronome/note: the note must be 0 to 127, got 300") {
            harness.send("/metronome/note", [.int32(300), .int32(1)])
        }
        check("/metronome/note: the velocity must be a whole number, got f 1.5") {
            harness.send("/metronome/note", [.int32(60), .float32(1.5)])
        }
        check("/metronome/volume: the volume must be 0 to 1, got 2.0") {
            harness.send("/metronome/volume", [.float32(2)])
        }
        check("/metronome/sound: unknown sound \"gong\"; choose one of wood, beep, clave, cowbell") {
            harness.send("/metronome/sound", [.string("gong")])
        }
        check("/metronome/pattern: no such pattern") { harness.send("/metronome/pattern", [.string("missing")]) }
        check("/metronome/locate: bars are numbered from 1, got 0") { harness.send("/metronome/locate", [.int32(0)]) }
        check("/metronome/link: on must be 0 or 1, got 2") { harness.send("/metronome/link", [.int32(2)]) }
        check("/metronome/link/startstop: takes i on, got 0 arguments") { harness.send("/metronome/link/startstop") }
        check("/metronome/link: Link is not available in this service") {
            harness.send("/metronome/link", [.int32(1)])
        }
        check("/klick/simple/set_meter: takes i beats i unit, got 1 argument") {
            harness.send("/klick/simple/set_meter", [.int32(3)])
        }
        try harness.render(to: 200_000)
        // Nothing reached the transport but the first play.
        #expect(harness.applied.map(\.command) == [.play])
        #expect(harness.sink.clicks == (0..<9).map { $0 * 24_000 })
        #expect(harness.state()["dropped"] == .int32(Int32(expected)))
        #expect(harness.service.receivedCount == 3)
    }
    @Test(
        "/metronome/tap t: taps at host times 0.5 s apart set 120 BPM; perform(_:from:) applies a command as a datagram would and returns why one is refused"
    )
    func tapAtTimesAndPerform() throws {
        let harness = try Harness()
        try harness.render(to: 10_000)
        #expect(harness.service.perform(OSCMessage("/metronome/tempo", [.float32(90)]), from: Harness.client) == nil)
        try harness.render(to: 100_000)
        #expect(harness.applied.last?.command == .setTempo(try BPM(90)))
        let start: Int64 = 1_000_000_000_000
        for index in 0..<4 {
            let time = try tag(start + Int64(index) * 500_000_000)
            #expect(
                harness.service.perform(OSCMessage("/metronome/tap", [.timeTag(time)]), from: Harness.client) == nil)
        }
        try harness.render(to: 250_000)
        // Each time tag goes through the Unix offset, sampled anew: a few nanoseconds of difference, no more.
        guard case .setTempo(let tempo) = harness.applied.last?.command else {
            Issue.record("no tempo from the taps: \(harness.applied)")
            return
        }
        #expect(abs(tempo.quarterNotesPerMinute - 120) < 0.001)
        #expect(
            harness.service.perform(OSCMessage("/metronome/tap", [.int32(3)]), from: Harness.client)
                == "/metronome/tap: the tap's time must be a time tag, got i 3")
        #expect(
            harness.service.perform(OSCMessage("/metronome/tap", [.timeTag(.immediately)]), from: Harness.client)
                == "/metronome/tap: the tap's time must be a time tag, got t immediately")
        #expect(harness.service.droppedCount == 2)
        #expect(
            harness.service.lastErrorMessage == "/metronome/tap: the tap's time must be a time tag, got t immediately")
    }

    @Test("/metronome/query replies with the state's key/value pairs to the sender")
    func query() throws {
        let harness = try Harness()
        try harness.render(to: 50_000)
        harness.send("/metronome/meter", [.int32(7), .int32(8)])
        harness.send("/metronome/subscribe", [.int32(9001)])
        try harness.render(to: 100_000)
        let state = harness.state()
        #expect(state["playing"] == .int32(1))
        #expect(state["state"] == .string("playing"))
        #expect(state["tempo"] == .float32(120))
        #expect(state["meter"] == .string("7/8"))
        #expect(state["bar"] == .int32(2))
        #expect(state["subscribers"] == .int32(1))
        #expect(state["underruns"] == .int32(3))
        #expect(state["dropped"] == .int32(0))
        #expect(state["sound"] == .string("wood"))
        #expect(harness.sent.withLock { $0.last?.1 } == Harness.client)
    }

    @Test(
        "/metronome/state names the clock that leads: source midi-clock, source_state waiting before a tick, locked while ticks come, holding once they stop for 0.15 s and four ticks, locked again when they come back; empty for our own"
    )
    func followedClockInState() throws {
        let own = try Harness()
        #expect(own.state()["source"] == .string(""))
        #expect(own.state()["source_state"] == .string(""))
        let inbox = MIDIInbox()
        let harness = try Harness(midiClock: MIDIClockFollower(inbox: inbox, framesPerSecond: 48_000))
        try harness.render(to: 2_000)
        #expect(harness.state()["source"] == .string("midi-clock"))
        #expect(harness.state()["source_state"] == .string("waiting"))
        // 120 BPM: a tick every 1000 frames, each pushed before the block that holds it is scheduled.
        for tick in 3...40 {
            inbox.push(.clock, at: SampleTime(tick * 1000))
            try harness.render(to: tick * 1000)
        }
        #expect(harness.state()["source_state"] == .string("locked"))
        // The ticks stop: after 0.15 s and four ticks (7 200 + 4 000 frames at 120 BPM) without one, holding, judged
        // at the frame rendered (a pass every 1000 frames): the pass at 51 000 is not past 51 200, the one at 52 000
        // is, though the first frame not yet scheduled was past it a pass sooner. A tick again, locked.
        try harness.render(to: 52_000)
        #expect(harness.state()["source_state"] == .string("locked"))
        try harness.render(to: 53_000)
        #expect(harness.state()["source_state"] == .string("holding"))
        for tick in 57...72 {
            inbox.push(.clock, at: SampleTime(tick * 1000))
            try harness.render(to: tick * 1000)
        }
        #expect(harness.state()["source_state"] == .string("locked"))
    }

    @Test(
        "/metronome/follow chooses the clock that leads: midi-clock (Link, when on, led), link (on and followed) or none (Link off); /metronome/state's source says which; refused in one line without a MIDI clock, without Link, or for another name"
    )
    func followChoosesTheSource() throws {
        let bare = try Harness()
        for (value, error) in [
            ("midi-clock", "no MIDI clock in this service: serve with --driver jack to listen to midi_in"),
            ("link", "Link is not available in this service"),
            ("klick", "klick: the clock to follow is midi-clock, link or none"),
        ] {
            bare.send("/metronome/follow", [.string(value)])
            #expect(bare.service.lastErrorMessage == "/metronome/follow: \(error)")
        }
        let lead = FakeClockLead()
        let link = FakeLink()
        let harness = try Harness(
            midiClock: MIDIClockFollower(inbox: MIDIInbox(), framesPerSecond: 48_000, leads: false), clockLead: lead,
            link: link)
        try harness.render(to: 2_000)
        #expect(harness.state()["source"] == .string(""))
        harness.send("/metronome/follow", [.string("midi-clock")])
        #expect(lead.leads && !link.isEnabled)
        #expect(harness.state()["source"] == .string("midi-clock"))
        harness.send("/metronome/link", [.int32(1)])
        #expect(lead.leads && link.isEnabled)
        #expect(harness.state()["source"] == .string("midi-clock"))
        harness.send("/metronome/follow", [.string("link")])
        #expect(!lead.leads && link.isEnabled)
        #expect(harness.state()["source"] == .string("link"))
        harness.send("/metronome/follow", [.string("none")])
        #expect(!lead.leads && !link.isEnabled)
        #expect(harness.state()["source"] == .string(""))
        #expect(harness.service.lastErrorMessage == "")
    }

    @Test(
        "A pattern played to its end: stopped back at its top, which the state shows as the music's first beat (1.1, not the count-in's 0.1) with its bar's accents"
    )
    func endedPatternState() throws {
        let accents = try AccentPattern(parsing: "Xo.x", for: .fourFour)
        let map = try TempoMap.steady(tempo: BPM(120), accents: accents, bars: 2).withCountIn(bars: 1)
        let harness = try Harness(map: map)
        try harness.render(to: 24_000)
        #expect(harness.state()["bar"] == .int32(0), "the count-in plays as bar 0")
        // 3 bars of 4 beats at 24 000 frames, and the last click's tail.
        try harness.render(to: 12 * 24_000 + 10_000)
        let state = harness.state()
        #expect(state["state"] == .string("stopped"))
        #expect(state["bar"] == .int32(1) && state["beat"] == .int32(1), "\(state)")
        #expect(harness.service.state.accents == "Xo.x")
    }

    @Test("Address patterns with wildcards reach every matching address")
    func wildcards() throws {
        let harness = try Harness()
        try harness.render(to: 10_000)
        harness.send("/metronome/qu?ry")
        #expect(harness.replies.map(\.addressPattern) == ["/metronome/state"])
        harness.sent.withLock { $0 = [] }
        harness.send("/klick/{config,map}/query")
        #expect(
            harness.replies.map(\.addressPattern) == [
                "/klick/config/sound", "/klick/config/sound_volume", "/klick/config/sound_pitch",
                "/klick/config/volume",
                "/klick/map/filename", "/klick/map/preroll", "/klick/map/tempo_multiplier",
            ])
    }

    @Test("klick: ping answers the return address; register_client gets notified of a tempo change")
    func klick() throws {
        let harness = try Harness()
        harness.send("/klick/ping", [.string("osc.udp://127.0.0.1:9999/")])
        #expect(harness.replies.map(\.addressPattern) == ["/klick/pong"])
        #expect(harness.sent.withLock { $0.last?.1 } == OSCEndpoint.loopback(port: 9999))
        harness.sent.withLock { $0 = [] }
        harness.send("/klick/register_client", [.string("osc.udp://127.0.0.1:9998/")])
        harness.send("/klick/simple/set_tempo", [.float32(100)])
        let notified = harness.sent.withLock { $0 }
        #expect(notified.allSatisfy { $0.1 == OSCEndpoint.loopback(port: 9998) })
        #expect(harness.replies.first == OSCMessage("/klick/simple/tempo", [.float32(100)]))
        #expect(harness.replies.map(\.addressPattern).contains("/klick/simple/meter"))
    }

    @Test("klick's trainer: +10 a bar from the next bar up to 140, then steady")
    func trainer() throws {
        let harness = try Harness()
        try harness.render(to: 50_000)
        harness.send("/klick/simple/set_tempo_limit", [.float32(140)])
        harness.send("/klick/simple/set_tempo_increment", [.float32(10)])
        try harness.render(to: 1_000_000)
        let map = harness.session.map
        let tempos = (1...6).map { map.tempo(at: map.position(ofBar: $0)!) }
        #expect(tempos == [120, 130, 140, 140, 140, 140])
        // Bar 2 (frame 192,000 at 120) is the first at 130: each of its beats 48000·60/130 frames.
        let clicks = harness.sink.clicks
        let bar2 = try #require(clicks.firstIndex(of: 192_000))
        #expect(clicks[bar2 - 1] == 168_000)
        #expect(clicks[bar2 + 1] == 192_000 + 22_154)  // 22,153.85 rounded
    }

    @Test("/metronome/arp starts its progression's first chord on the next bar; /metronome/arp/stop ends it")
    func arpeggio() throws {
        let harness = try Harness(clickGain: 0)
        try harness.render(to: 50_000)
        harness.send("/metronome/arp", [.string("C F"), .string("up"), .string("1/4")])
        try harness.render(to: 96_000 * 3)
        // Reference: the same arpeggio from bar 1 (frame 96,000) on a session playing from the start.
        let reference = try Harness(clickGain: 0)
        var settings = ArpeggioSettings()
        settings.rate = .quarter
        settings.startBar = 1
        try reference.session.add(
            NotePlayer(
                tracks: [.init(bank: InstrumentSynthesizer.bank(.piano, sampleRate: .standard))],
                source: ArpeggioSequence(
                    chords: try ChordSymbol.progression("C F"), settings: settings, map: reference.session.map),
                sampleRate: .standard))
        try reference.render(to: 96_000 * 3)
        #expect(harness.sink.values[..<96_000].allSatisfy { $0 == 0 })
        #expect(harness.sink.values == reference.sink.values)
    }

    @Test("/metronome/sound switches the clicks from the next one scheduled")
    func sound() throws {
        let harness = try Harness()
        try harness.render(to: 10_000)
        harness.send("/metronome/sound", [.string("beep")])
        try harness.render(to: 12_000)
        #expect(harness.session.scheduler.clicks.name == "beep")
        #expect(harness.state()["sound"] == .string("beep"))
    }

    @Test("Subscribers get /metronome/beat with bar, beat, tempo and the beat's host time as a time tag")
    func beats() async throws {
        let harness = try Harness()
        harness.send("/metronome/subscribe", [.string("127.0.0.1"), .int32(9100)])
        let stream = harness.session.beats()
        try harness.render(to: 30_000)
        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        let second = try #require(await iterator.next())
        for beat in [first, second] { harness.service.publish(beat) }
        let beats = harness.sent.withLock { $0 }.filter { $0.1 == .loopback(port: 9100) }
        #expect(beats.count == 2)
        guard case .message(let message) = beats[1].0 else { Issue.record("not a message"); return }
        #expect(message.addressPattern == "/metronome/beat")
        #expect(Array(message.arguments.prefix(3)) == [.int32(1), .int32(2), .float32(120)])
        guard case .timeTag(let time) = message.arguments[3] else { Issue.record("no time tag"); return }
        let host = try time.monotonicNanoseconds(unixOffsetNanoseconds: OSCService.unixOffset())
        // Beat 2 at frame 24,000 is heard 0.5 s after frame 0 (offline the beats' clock starts at 0).
        #expect(abs(host - 500_000_000) < 1_000)
        harness.send("/metronome/unsubscribe", [.string("127.0.0.1"), .int32(9100)])
        #expect(harness.service.subscriberCount == 0)
    }

    @Test("/metronome/quit asks the service to stop; pause and continue resume the same position")
    func pauseAndQuit() throws {
        let harness = try Harness()
        try harness.render(to: 50_000)
        harness.send("/metronome/pause")
        try harness.render(to: 150_000)
        harness.send("/metronome/continue")
        try harness.render(to: 250_000)
        let commands = harness.applied.map(\.command)
        #expect(commands == [.play, .pause, .resume])
        let pause = harness.applied[1]
        let resume = harness.applied[2]
        #expect(pause.frame == 72_000)
        #expect(resume.position == pause.position)
        #expect(harness.service.quitRequested == false)
        harness.send("/metronome/quit")
        #expect(harness.service.quitRequested)
    }
}

/// A MIDI clock's lead switch that only records what it was told.
private final class FakeClockLead: ServiceClockLead, @unchecked Sendable {
    // @unchecked: the flag is behind a lock.
    private let on = Locked(false)
    var leads: Bool { on.withLock { $0 } }
    func lead(_ value: Bool) { on.withLock { $0 = value } }
}

/// A Link session that only records what it was told.
private final class FakeLink: ServiceLink, @unchecked Sendable {
    // @unchecked: the flags are behind a lock.
    private let state = Locked((enabled: false, quantum: 4.0, startStop: false))
    var isEnabled: Bool { state.withLock { $0.enabled } }
    func enable(_ on: Bool) { state.withLock { $0.enabled = on } }
    var quantum: Double {
        get { state.withLock { $0.quantum } }
        set { state.withLock { $0.quantum = newValue } }
    }
    var isStartStopSyncEnabled: Bool { state.withLock { $0.startStop } }
    func enableStartStopSync(_ on: Bool) { state.withLock { $0.startStop = on } }
    var peers: Int { 0 }
}
