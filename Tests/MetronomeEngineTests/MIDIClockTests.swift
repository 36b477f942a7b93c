import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import MetronomeTestSupport
import Testing

/// Drives a scheduler with MIDI clock by hand (as the live timer would) and returns every MIDI message pushed, with
/// its frame; `changes` are sent when the horizon first reaches their frame.
private func midi(
    _ map: TempoMap, until end: SampleTime, step: SampleTime = 500, endFrame: SampleTime? = nil,
    changes: [(frame: SampleTime, send: (Scheduler) -> Void)] = []
) -> [(frame: SampleTime, message: MIDIMessage)] {
    let scheduler = Scheduler(
        map: map, clicks: Impulses.clickSet(), ring: CommandRing(minimumCapacity: 64), endFrame: endFrame)
    scheduler.sendsMIDIClock = true
    scheduler.send(.play, at: .frame(0))
    var pushed: [(frame: SampleTime, message: MIDIMessage)] = []
    var horizon: SampleTime = 0
    var next = 0
    var previous: SampleTime = .min
    while horizon < end {
        horizon += step
        while next < changes.count, horizon >= changes[next].frame {
            changes[next].send(scheduler)
            next += 1
        }
        while !scheduler.schedule(until: horizon) {
            drain()
        }
        drain()
    }
    func drain() {
        while let command = scheduler.ring.peek() {
            // The ring is in frame order, whatever it carries.
            #expect(command.frame >= previous)
            previous = command.frame
            if command.kind == .midi { pushed.append((command.frame, command.midi)) }
            scheduler.ring.removeFirst()
        }
    }
    return pushed
}

/// `count` frames from `start`, `step` apart.
private func grid(_ start: SampleTime, _ count: Int, _ step: SampleTime) -> [SampleTime] {
    (0..<count).map { start + SampleTime($0) * step }
}

private func clocks(_ messages: [(frame: SampleTime, message: MIDIMessage)]) -> [SampleTime] {
    messages.filter { $0.message == .clock }.map(\.frame)
}

@Suite("MIDI clock and transport messages from the scheduler")
struct MIDIClockTests {
    @Test(
        "At 127 BPM (a clock every 944.88… frames at 48 kHz) clock n lies on round(n × 60 × 48000 / (127 × 24)), never an accumulated interval; Start before the first"
    )
    func fractionalIntervalInClosedForm() throws {
        let map = try TempoMap.steady(tempo: .of(127))
        let pushed = midi(map, until: 48_000 * 20)
        #expect(pushed.first?.message == .start)
        #expect(pushed.first?.frame == 0)
        #expect(pushed.dropFirst().first?.message == .clock)
        let found = clocks(pushed)
        #expect(found.count > 1000)
        let framesPerClock: Double = 60 * 48_000 / (127 * 24)
        let expected: [SampleTime] = (0..<found.count).map { SampleTime((Double($0) * framesPerClock).rounded()) }
        #expect(found == expected)
        // The intervals are 944 or 945 frames: what an accumulated integer interval would lose.
        let intervals: Set<SampleTime> = Set(zip(found, found.dropFirst()).map { pair in pair.1 - pair.0 })
        #expect(intervals == [944, 945])
    }

    @Test("Across a ramp (90 to 150 BPM over 8 bars) every clock is on its position's frame in the map's closed form")
    func rampInClosedForm() throws {
        let section = try TempoSection(bars: 8, tempo: .of(90), endTempo: .of(150))
        let map = try TempoMap(sections: [section])
        let end = map.frame(at: try #require(map.endPosition))
        let pushed = midi(map, until: end + 48_000)
        let found = clocks(pushed)
        // 8 bars of 4/4: 32 quarter notes, 24 clocks each; none at the end itself.
        #expect(found.count == 32 * 24)
        let expected: [SampleTime] = (0..<found.count).map { clock in
            map.frame(at: Position(ticks: Int64(clock) * Position.ticksPerQuarter / 24))
        }
        #expect(found == expected)
        // The map's end stops the receiver, after the last clock.
        #expect(pushed.last?.message == .stop)
        #expect(pushed.last?.frame == end)
    }

    @Test(
        "Pause sends Stop on its beat; resume sends the song position (the next sixteenth) and Continue, and the clocks go on from that sixteenth's frame"
    )
    func pauseAndResume() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        // 120 BPM at 48 kHz: a beat is 24 000 frames, a clock 1 000, a sixteenth 6 000.
        let pushed = midi(
            map, until: 200_000,
            changes: [
                (50_000, { $0.send(.pause) }),
                (100_000, { $0.send(.resume, at: .frame(100_000)) }),
            ])
        let stop = try #require(pushed.firstIndex { $0.message == .stop })
        // The pause falls on the next beat not yet scheduled: 3 (72 000); clocks 0 … 71 before it.
        #expect(pushed[stop].frame == 72_000)
        #expect(clocks(Array(pushed[..<stop])) == grid(0, 72, 1000))
        let after = Array(pushed[(stop + 1)...])
        #expect(after.first?.message == .songPosition(12))
        #expect(after.first?.frame == 100_000)
        #expect(after.dropFirst().first?.message == .continue)
        #expect(after.dropFirst().first?.frame == 100_000)
        // Beat 3 again sounds at 100 000: sixteenth 12 is beat 3, so clock 72 lands there, then every 1 000.
        let resumed = clocks(after)
        #expect(resumed.first == 100_000)
        #expect(resumed == grid(100_000, resumed.count, 1000))
    }

    @Test(
        "A locate while playing sends Stop, the song position of the bar, and Continue on the bar it lands on; a locate to the top sends Start"
    )
    func locate() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        let pushed = midi(
            map, until: 400_000,
            changes: [
                (10_000, { $0.send(.locateBar(4)) }),
                (150_000, { $0.send(.locateBar(1)) }),
            ])
        let transport = pushed.filter { $0.message != .clock }
        // Bar 4 (bars count from 1) of 4/4 starts at quarter 12: sixteenth 48. The first locate waits for the next bar (96 000), the second for the bar
        // after 150 000 on the new run (192 000).
        #expect(transport.map(\.message) == [.start, .stop, .songPosition(48), .continue, .stop, .start])
        #expect(transport.map(\.frame) == [0, 96_000, 96_000, 96_000, 192_000, 192_000])
        let found = clocks(pushed)
        let expectedStart: [SampleTime] = grid(0, 97, 1000)
        #expect(Array(found.prefix(97)) == expectedStart)
        let between: [SampleTime] = found.filter { $0 >= 96_000 && $0 < 192_000 }
        #expect(between == grid(96_000, 96, 1000))
        #expect(found.last.map { $0 >= 192_000 } == true)
    }

    @Test(
        "An alignment moving the beat earlier by more than a clock (a Link beat jump) sends Stop, the song position of the beat and Continue on its new frame, the clocks going on from it; one moving it by less than a clock keeps counting"
    )
    func alignmentJumpResyncs() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        // As the follower sends it: the beat at position 3 (frame 72 000 at 120 BPM) re-anchored on an earlier
        // frame, quantized to that frame.
        let beat3 = Position(ticks: 3 * Position.ticksPerQuarter)
        func aligned(to frame: Double) -> [(frame: SampleTime, message: MIDIMessage)] {
            midi(
                map, until: 150_000,
                changes: [(50_000, { $0.send(.align(beat3, frame: frame), at: .frame(SampleTime(frame))) })])
        }
        // 12 000 frames (12 clocks) earlier: clocks 60 to 71 would be skipped.
        let jumped = aligned(to: 60_000)
        let transport = jumped.filter { $0.message != .clock }
        #expect(transport.map(\.message) == [.start, .stop, .songPosition(12), .continue], "\(transport)")
        #expect(transport.dropFirst().allSatisfy { $0.frame == 60_000 }, "\(transport)")
        #expect(clocks(jumped) == grid(0, 60, 1000) + grid(60_000, 90, 1000))
        // 200 frames earlier: every clock counted, the one of the beat on its new frame.
        let small = aligned(to: 71_800)
        #expect(small.filter { $0.message != .clock }.map(\.message) == [.start])
        #expect(clocks(small) == grid(0, 72, 1000) + grid(71_800, 79, 1000))
    }

    @Test(
        "A resync (an output's server came back) while playing sends Stop, the song position of the sixteenth at or after the first unscheduled frame and Continue on that frame, and the clocks go on from that sixteenth's frame; paused or stopped, nothing"
    )
    func resyncAfterReturn() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        // Asked for when the horizon reaches 50 000: the scheduler has gone up to 49 500 (a step of 500), beat 2 and a
        // sixteenth and a quarter of one. The next sixteenth is 9, on 54 000; clocks 50 to 53 are never sent.
        let playing = midi(map, until: 150_000, changes: [(50_000, { $0.resyncMIDI() })])
        let transport = playing.filter { $0.message != .clock }
        let resyncMessages: [MIDIMessage] = [.start, .stop, .songPosition(9), .continue]
        #expect(transport.map(\.message) == resyncMessages, "\(transport)")
        #expect(transport.map(\.frame) == [0, 49_500, 49_500, 49_500], "\(transport)")
        #expect(clocks(playing) == grid(0, 50, 1000) + grid(54_000, 96, 1000))
        // Each clock after the Continue is the one its frame's position gives: clock 54 on 54 000, and so on.
        let resumed = try #require(playing.firstIndex { $0.message == .continue })
        #expect(playing[(resumed + 1)...].allSatisfy { $0.message == .clock })

        // At 127 BPM (944.88… frames a clock) the clocks go on in closed form from the sixteenth: 49 500 is past clock
        // 52 (49 133.9…), the next sixteenth is 9 (clock 54, 51 023.6…).
        let fractional = midi(
            try TempoMap.steady(tempo: .of(127)), until: 150_000, changes: [(50_000, { $0.resyncMIDI() })])
        let framesPerClock: Double = 60 * 48_000 / (127 * 24)
        let inClosedForm = { (clock: Int) -> SampleTime in SampleTime((Double(clock) * framesPerClock).rounded()) }
        #expect(fractional.filter { $0.message != .clock }.map(\.message) == resyncMessages)
        let closedForm: [SampleTime] = (0...52).map(inClosedForm) + (54...158).map(inClosedForm)
        #expect(clocks(fractional) == closedForm)

        // Paused (Stop on beat 1, 24 000) or stopped (Stop on 10 000): a resync sends nothing, not even a Continue,
        // which would start the receivers.
        let paused = midi(
            map, until: 150_000,
            changes: [(20_000, { $0.send(.pause) }), (50_000, { $0.resyncMIDI() })])
        let startAndStop: [MIDIMessage] = [.start, .stop]
        #expect(paused.filter { $0.message != .clock }.map(\.message) == startAndStop)
        let pausedOnTheBeat = paused.last.map { (last: (frame: SampleTime, message: MIDIMessage)) -> Bool in
            last.message == .stop && last.frame == 24_000
        }
        #expect(pausedOnTheBeat == true, "\(paused.suffix(2))")
        let stopped = midi(
            map, until: 150_000,
            changes: [(10_000, { $0.send(.stop, at: .frame(10_000)) }), (50_000, { $0.resyncMIDI() })])
        #expect(stopped.filter { $0.message != .clock }.map(\.message) == startAndStop)
        let stoppedOnItsFrame = stopped.last.map { (last: (frame: SampleTime, message: MIDIMessage)) -> Bool in
            last.message == .stop && last.frame == 10_000
        }
        #expect(stoppedOnItsFrame == true, "\(stopped.suffix(2))")
    }

    @Test("A tempo change goes on from the first clock not yet pushed, on the edited map's frames")
    func tempoChange() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        let pushed = midi(map, until: 200_000, changes: [(30_000, { $0.send(.setTempo(.of(150))) })])
        let found = clocks(pushed)
        // The change lands on beat 2 (48 000); from there a clock is 800 frames (150 BPM).
        #expect(Array(found.prefix(48)) == grid(0, 48, 1000))
        #expect(Array(found.dropFirst(48)) == grid(48_000, found.count - 48, 800))
    }

    @Test("No clock at or past the end frame (--duration), Stop on it; no MIDI at all without sendsMIDIClock")
    func endFrameAndOff() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        let pushed = midi(map, until: 100_000, endFrame: 50_000)
        #expect(clocks(pushed) == grid(0, 50, 1000))
        // The end frame stops the receivers on it.
        #expect(pushed.last?.message == .stop)
        #expect(pushed.last?.frame == 50_000)
        let scheduler = Scheduler(map: map, clicks: Impulses.clickSet(), ring: CommandRing(minimumCapacity: 64))
        scheduler.send(.play, at: .frame(0))
        scheduler.schedule(until: 48_000)
        var kinds: [MixerCommand.Kind] = []
        while let command = scheduler.ring.peek() {
            kinds.append(command.kind)
            scheduler.ring.removeFirst()
        }
        #expect(!kinds.isEmpty && !kinds.contains(.midi))
    }

    @Test(
        "The mixer hands each render call's MIDI messages to the output with their frames, late ones at the block's start, and drops note-ons from a stop's cutoff on (clocks run on to the Stop)"
    )
    func mixerOutbox() throws {
        let ring = CommandRing(minimumCapacity: 16)
        let mixer = Mixer(configuration: try MixerConfiguration(sampleRate: .standard), commands: ring)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 256)
        defer { buffer.deallocate() }
        ring.push(.midi(.start, at: 10))
        ring.push(.midi(.clock, at: 10))
        ring.push(.midi(.noteOn(channel: 9, key: 76, velocity: 100), at: 300))
        mixer.render(into: buffer, frameCount: 256)
        #expect(outbox(mixer).map(\.frame) == [10, 10])
        #expect(outbox(mixer).map(\.message) == [.start, .clock])
        mixer.render(into: buffer, frameCount: 256)
        #expect(mixer.midiOut.count == 1)
        #expect(mixer.midiOut[0].frame == 300)
        #expect(mixer.midiOut[0].message.description == "99 4C 64")
        // Late: stamped before the block, sent at its first frame and counted.
        ring.push(.midi(.clock, at: 100))
        mixer.discardCommands(from: 700)
        ring.push(.midi(.clock, at: 700))
        ring.push(.midi(.noteOn(channel: 0, key: 60, velocity: 90), at: 710))
        ring.push(.midi(.noteOff(channel: 0, key: 60), at: 720))
        ring.push(.midi(.stop, at: 730))
        mixer.render(into: buffer, frameCount: 256)
        #expect(outbox(mixer).map(\.frame) == [512, 700, 720, 730])
        let sent: [MIDIMessage] = outbox(mixer).map(\.message)
        #expect(sent == [.clock, .clock, .noteOff(channel: 0, key: 60), .stop])
        #expect(mixer.lateEventCount == 1)
        mixer.render(into: buffer, frameCount: 256)
        #expect(mixer.midiOut.count == 0)
    }

    private func outbox(_ mixer: Mixer) -> [(frame: SampleTime, message: MIDIMessage)] {
        (0..<mixer.midiOut.count).map { mixer.midiOut[$0] }
    }

    @Test("Song Position Pointer: 14 bits, least significant first, kept to 0...16383")
    func songPositionBytes() {
        #expect(MIDIMessage.songPosition(0).description == "F2 00 00")
        #expect(MIDIMessage.songPosition(200).description == "F2 48 01")
        #expect(MIDIMessage.songPosition(20_000).description == "F2 7F 7F")
        #expect(MIDIMessage.clock.description == "F8")
    }
}

@Suite("MIDI clock beside swing and a count-in")
struct MIDIClockSwingTests {
    @Test(
        "Swing moves the eighth-note clicks, not the clock: every clock 1000 frames apart at 120 BPM while the off-beat clicks come late"
    )
    func swingLeavesTheClockStraight() throws {
        let section = try TempoSection(
            bars: nil, tempo: .of(120), subdivision: 2, swing: try Swing(note: 8, amount: 0.66))
        let map = try TempoMap(sections: [section])
        let scheduler = Scheduler(map: map, clicks: Impulses.clickSet(), ring: CommandRing(minimumCapacity: 256))
        scheduler.sendsMIDIClock = true
        scheduler.send(.play, at: .frame(0))
        scheduler.schedule(until: 96_000)
        var clocks: [SampleTime] = []
        var clicks: [SampleTime] = []
        while let command = scheduler.ring.peek() {
            if command.kind == .midi, command.midi == .clock { clocks.append(command.frame) }
            if command.kind == .startVoice { clicks.append(command.frame) }
            scheduler.ring.removeFirst()
        }
        #expect(clocks == (0..<96).map { (index: Int) -> SampleTime in SampleTime(index) * 1000 })
        // The off-beat eighth is swung: not on the straight 12 000.
        #expect(clicks.count == 8)
        #expect(clicks[0] == 0 && clicks[2] == 24_000)
        #expect(clicks[1] != 12_000)
    }

    @Test(
        "A count-in is part of the song: Start and the first clock on the count-in's first beat, the music's first downbeat on clock 96 (one bar of 4/4)"
    )
    func countInIsPartOfTheSong() throws {
        let map = try TempoMap.steady(tempo: .of(120)).withCountIn(bars: 1)
        let messages = midi(map, until: 120_000, step: 1000).map { ($0.frame, $0.message) }
        #expect(messages.first.map { $0.0 == 0 && $0.1 == .start } == true)
        let clocks = messages.filter { $0.1 == .clock }.map(\.0)
        #expect(clocks.count == 120)
        #expect(clocks[96] == 96_000)
        #expect(messages.filter { $0.1 != .clock }.count == 1)
    }
}

@Suite("MIDI click notes from the scheduler")
struct MIDIClickNoteTests {
    @Test(
        "Each click a note on channel 10 on its frame, its note off a 32nd note later, or on the next click of its key when that comes first (sixteen subdivisions a beat at 120 BPM: a click every 1500 frames, a 32nd is 3000)"
    )
    func notesAndOffs() throws {
        let map = try TempoMap.steady(tempo: .of(120), subdivision: 16)
        let scheduler = Scheduler(map: map, clicks: Impulses.clickSet(), ring: CommandRing(minimumCapacity: 4096))
        scheduler.midiClickNotes = { event in event.isBeat ? (76, 127) : (42, 100) }
        scheduler.send(.play, at: .frame(0))
        var horizon: SampleTime = 0
        var messages: [(frame: SampleTime, message: MIDIMessage)] = []
        var previous: SampleTime = 0
        while horizon < 48_000 {
            horizon += 700
            scheduler.schedule(until: horizon)
            while let command = scheduler.ring.peek() {
                #expect(command.frame >= previous)
                previous = command.frame
                if command.kind == .midi { messages.append((command.frame, command.midi)) }
                scheduler.ring.removeFirst()
            }
        }
        let beats = messages.filter { $0.message.data1 == 76 }
        #expect(beats.map(\.frame) == [0, 3000, 24_000, 27_000, 48_000])
        let on = MIDIMessage.noteOn(channel: 9, key: 76, velocity: 127)
        let off = MIDIMessage.noteOff(channel: 9, key: 76)
        #expect(beats.map(\.message) == [on, off, on, off, on])
        // The subdivisions: on, off, on, … each off on the frame of the next on of its key (it comes just before
        // it, 1500 frames after its own on, or 3000 when a beat came between), never later than a 32nd.
        let subdivisions = messages.filter { $0.message.data1 == 42 }
        #expect(subdivisions.first?.frame == 1500)
        #expect(subdivisions.count > 50)
        for (index, sent) in subdivisions.enumerated() {
            #expect(sent.message.status == (index % 2 == 0 ? 0x99 : 0x89), "\(index): \(sent)")
            guard index % 2 == 1 else { continue }
            let held = sent.frame - subdivisions[index - 1].frame
            #expect(held == 1500 || held == 3000, "\(index): \(sent) after \(subdivisions[index - 1])")
            if index + 1 < subdivisions.count { #expect(subdivisions[index + 1].frame == sent.frame) }
        }
        #expect(!messages.contains { $0.message == .clock })
    }
}

@Suite("MIDI notes of the note players")
struct MIDINotePlayerTests {
    @Test(
        "sendsMIDINotes: every arpeggio note a note on on the frame its voice starts and a note off on the frame its release is pushed, channel 1, keys and velocities as played; none without it"
    )
    func arpeggioNotesAsMIDI() throws {
        for midi in [true, false] {
            let map = try TempoMap.steady(tempo: .of(120))
            let zone = try BankZone(
                sample: SampleBuffer(channels: [[0.1]], name: "tick"), sampleRate: 48_000, lowNote: 0, highNote: 127,
                rootNote: 60, release: 0)
            var settings = ArpeggioSettings()
            settings.rate = .eighth
            let player = NotePlayer(
                tracks: [.init(bank: SoundBank(name: "tick", summary: "one frame", zones: [zone]), pan: 0)],
                source: ArpeggioSequence(chords: try ChordSymbol.progression("C Am"), settings: settings, map: map),
                sampleRate: .standard)
            let scheduler = Scheduler(map: map, clicks: Impulses.clickSet(), ring: CommandRing(minimumCapacity: 4096))
            scheduler.sendsMIDINotes = midi
            scheduler.add(player)
            scheduler.send(.play, at: .frame(0))
            var starts: [(frame: SampleTime, tag: UInt32)] = []
            var releases: [(frame: SampleTime, tag: UInt32)] = []
            var messages: [(frame: SampleTime, message: MIDIMessage)] = []
            var horizon: SampleTime = 0
            while horizon < 96_000 {
                horizon += 1000
                scheduler.schedule(until: horizon)
                while let command = scheduler.ring.peek() {
                    switch command.kind {
                    case .startVoice where command.tag != 0: starts.append((command.frame, command.tag))
                    case .releaseVoices: releases.append((command.frame, command.tag))
                    case .midi: messages.append((command.frame, command.midi))
                    default: break
                    }
                    scheduler.ring.removeFirst()
                }
            }
            guard midi else {
                #expect(messages.isEmpty)
                continue
            }
            // Eighths at 120 BPM: a note every 12 000 frames, each on its own frame.
            let ons = messages.filter { $0.message.status == 0x90 }
            let offs = messages.filter { $0.message.status == 0x80 }
            #expect(ons.count >= 7)
            #expect(ons.map(\.frame) == starts.map(\.frame))
            #expect(ons.allSatisfy { $0.message.data2 > 0 })
            // C major arpeggiated upward: C, E, G from the root the arpeggiator picks.
            let keys = ons.prefix(3).map { Int($0.message.data1) }
            #expect(keys.count == 3 && keys[1] - keys[0] == 4 && keys[2] - keys[1] == 3, "\(keys)")
            // Each off on its release's frame, in the order the releases were pushed.
            #expect(offs.map(\.frame) == releases.map(\.frame))
            #expect(offs.count >= 6)
        }
    }
}

@Suite("MIDI clock beside live notes")
struct MIDIClockLiveNoteTests {
    @Test(
        "Live notes queued a while ahead (a MIDI input's) keep the ring in frame order: the clocks between a note on and its note off are not held behind it"
    )
    func liveNotesKeepTheClockInOrder() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        let zone = try BankZone(
            sample: SampleBuffer(channels: [[0.1]], name: "tick"), sampleRate: 48_000, lowNote: 0, highNote: 127,
            rootNote: 60, release: 0)
        let player = NotePlayer(
            tracks: [.init(bank: SoundBank(name: "tick", summary: "one frame", zones: [zone]), pan: 0)],
            source: NoteBatches([]), sampleRate: .standard)
        let scheduler = Scheduler(map: map, clicks: Impulses.clickSet(), ring: CommandRing(minimumCapacity: 4096))
        scheduler.sendsMIDIClock = true
        scheduler.add(player)
        scheduler.send(.play, at: .frame(0))
        var frames: [SampleTime] = []
        var clocks: [SampleTime] = []
        var horizon: SampleTime = 0
        while horizon < 96_000 {
            horizon += 480
            if horizon == 48_000 {
                // Queued ahead of what is scheduled, as a MIDI input's note on and off.
                player.queue.noteOn(60, velocity: 100, at: 50_000)
                player.queue.noteOff(60, at: 50_200)
                player.queue.commit()
            }
            scheduler.schedule(until: horizon)
            while let command = scheduler.ring.peek() {
                frames.append(command.frame)
                if command.kind == .midi, command.midi == .clock { clocks.append(command.frame) }
                scheduler.ring.removeFirst()
            }
        }
        #expect(frames == frames.sorted(), "\(frames)")
        #expect(clocks == (0..<96).map { (index: Int) -> SampleTime in SampleTime(index) * 1000 }, "\(clocks)")
    }
}
