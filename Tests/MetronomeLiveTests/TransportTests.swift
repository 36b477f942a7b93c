import Foundation
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomeTestSupport
import Testing

/// Quarter-note ticks, written out so the expectations do not lean on the engine's constant.
private let ppq: Int64 = 28_828_800

/// The seven quantizations, with a fixed position and frames for the last four.
enum When: String, CaseIterable, Sendable {
    case now, nextBeat, nextBar, position, frame, beatFrom, barFrom

    var quantization: Quantization {
        switch self {
        case .now: .now
        case .nextBeat: .nextBeat
        case .nextBar: .nextBar
        case .position: .position(Position(ticks: 11 * ppq / 2))
        case .frame: .frame(123_457)
        case .beatFrom: .beat(atOrAfter: 100_000)
        case .barFrom: .bar(atOrAfter: 100_000)
        }
    }
}

/// The frame every command is sent at: the first frame not yet scheduled.
private let sentAt: SampleTime = 50_000

/// The first tick whose frame rounds to `frame` or later at 120 BPM from frame 0 (24000 frames a quarter note):
/// the least t with t · 24000 / PPQ ≥ frame − ½, i.e. ⌈(2·frame − 1) · PPQ / 48000⌉.
private func firstTick(atOrAfter frame: SampleTime) -> Int64 {
    ((2 * frame - 1) * ppq + 47_999) / 48_000
}

/// Exact frame of a tick at 120 BPM from frame 0.
private func exact120(_ ticks: Int64) -> Double { Double(ticks) * 24_000 / Double(ppq) }

/// Where a command sent at frame 50 000 of a 120 BPM 4/4 run started at frame 0 takes effect: frame and ticks.
private func effect(_ when: When) -> (frame: SampleTime, ticks: Int64) {
    switch when {
    case .now: (sentAt, firstTick(atOrAfter: sentAt))
    case .nextBeat: (72_000, 3 * ppq)  // beat 2 lies at 48 000, already scheduled
    case .nextBar: (96_000, 4 * ppq)
    case .position: (132_000, 11 * ppq / 2)
    case .frame: (123_457, firstTick(atOrAfter: 123_457))
    case .beatFrom: (120_000, 5 * ppq)  // the first beat from frame 100 000
    case .barFrom: (192_000, 8 * ppq)  // the first downbeat from frame 100 000
    }
}

/// The first whole beat (in quarter notes) at or after a tick.
private func firstBeat(atOrAfter ticks: Int64) -> Int64 { (ticks + ppq - 1) / ppq }

/// Sections "A" (4 bars) and "B" (endless), 4/4 at 120 BPM throughout.
private func labelledMap() throws -> TempoMap {
    try TempoMap(sections: [
        TempoSection(label: "A", bars: 4, tempo: .of(120)), TempoSection(label: "B", bars: nil, tempo: .of(120)),
    ])
}

/// Plays from frame 0, sends `command` at frame 50 000, schedules to `end`.
private func playAndSend(_ command: TransportCommand, _ when: When, end: SampleTime = 600_000) throws -> Rig {
    let rig = Rig(try labelledMap())
    rig.scheduler.send(.play, at: .frame(0))
    rig.advance(to: sentAt)
    #expect(rig.beats.map(\.frame) == [0, 24_000, 48_000])
    rig.scheduler.send(command, at: when.quantization)
    rig.advance(to: end)
    return rig
}

/// Checks the last applied command's frame and position.
private func expectApplied(_ rig: Rig, _ command: TransportCommand, frame: SampleTime, ticks: Int64) {
    #expect(rig.last?.command == command)
    #expect(rig.last?.frame == frame)
    #expect(rig.last?.position == Position(ticks: ticks))
}

/// The beats before the effect frame: every 24 000 frames from 0, 4/4.
private func beatsBefore(_ frame: SampleTime) -> [SampleTime] {
    stride(from: 0, to: frame, by: 24_000).map { SampleTime($0) }
}

@Suite("The transport's state machine on a virtual clock")
struct TransportTests {
    @Test(
        "setTempo takes effect at each quantization; the beats after it are spaced at the new tempo",
        arguments: When.allCases)
    func setTempo(when: When) throws {
        let rig = try playAndSend(.setTempo(.of(150)), when)
        let (frame, ticks) = effect(when)
        expectApplied(rig, .setTempo(.of(150)), frame: frame, ticks: ticks)
        // After the edit a quarter note lasts 60/150 s = 19 200 frames, from the exact frame of the edit's position.
        let first = firstBeat(atOrAfter: ticks)
        let after = (0..<10).map { k -> SampleTime in
            let beatTicks = (first + Int64(k)) * ppq
            return SampleTime((exact120(ticks) + Double(beatTicks - ticks) * 19_200 / Double(ppq)).rounded())
        }
        #expect(Array(rig.beats.map(\.frame).prefix(beatsBefore(frame).count + 10)) == beatsBefore(frame) + after)
        #expect(
            rig.beats.map(\.position).prefix(beatsBefore(frame).count + 10).last == Position(ticks: (first + 9) * ppq))
    }

    @Test("rampTempo reaches 60 BPM over 4 beats from the quantized position, then holds it", arguments: When.allCases)
    func rampTempo(when: When) throws {
        let command = TransportCommand.rampTempo(to: .of(60), beats: 4)
        let rig = try playAndSend(command, when)
        let (frame, ticks) = effect(when)
        expectApplied(rig, command, frame: frame, ticks: ticks)
        // klick's ramp over N = 4 quarter beats from T₀ = 120 to T₁ = 60: t(x) = 240·N/(4·ΔT)·ln(1 + ΔT·x/(N·T₀)),
        // then one second a beat.
        func seconds(_ x: Double) -> Double {
            guard x > 4 else { return 240 * 4 / (4 * -60.0) * log(1 + -60 * x / (4 * 120)) }
            return seconds(4) + (x - 4)
        }
        let first = firstBeat(atOrAfter: ticks)
        let after = (0..<10).map { k -> SampleTime in
            let x = Double((first + Int64(k)) * ppq - ticks) / Double(ppq)
            return SampleTime((exact120(ticks) + seconds(x) * 48_000).rounded())
        }
        #expect(Array(rig.beats.map(\.frame).prefix(beatsBefore(frame).count + 10)) == beatsBefore(frame) + after)
    }

    @Test(
        "A meter change applies from the first downbeat at or after its position to the end of that section",
        arguments: When.allCases)
    func changeClicks(when: When) throws {
        let command = TransportCommand.changeClicks(TempoMap.ClickChange(meter: .of(3, 4)))
        let rig = try playAndSend(command, when, end: 24_000 * 20)
        let (frame, ticks) = effect(when)
        expectApplied(rig, command, frame: frame, ticks: ticks)
        // A new meter starts on a downbeat: the bar holding the position when it is one, else the next bar. Bars
        // 0..<changed keep 4 beats, the rest of section A (bars changed...3) has 3, section B 4 again.
        let changed = Int((ticks + 4 * ppq - 1) / (4 * ppq))
        var layout: [(bar: Int, beat: Int)] = []
        var bar = 0
        while layout.count < 20 {
            let beats = bar >= changed && bar <= 3 ? 3 : 4
            layout += (0..<beats).map { (bar, $0) }
            bar += 1
        }
        let before = beatsBefore(frame).count
        let expected = (0..<20).map { b in b < before ? (b / 4, b % 4) : layout[b] }
        #expect(rig.beats.count == 20)
        #expect(rig.beats.map(\.frame) == (0..<20).map { (index: Int) -> SampleTime in SampleTime(index) * 24_000 })
        #expect(rig.beats.map(\.bar) == expected.map(\.0))
        #expect(rig.beats.map(\.beat) == expected.map(\.1))
        #expect(rig.beats.filter { $0.beat == 0 }.allSatisfy { $0.level == .accent })
        #expect(rig.beats.filter { $0.beat != 0 }.allSatisfy { $0.level == .normal })
        // Section B starts after 4 − changed bars of 3/4 and keeps 4/4.
        let bStart = 4 * changed + 3 * (4 - changed)
        #expect(rig.transport.map.sections.last?.meter == .of(4, 4))
        #expect(rig.transport.map.position(ofBar: 4) == Position(ticks: Int64(bStart) * ppq))
    }

    @Test(
        "locateBar jumps to bar 3's downbeat, heard at the exact frame of the position it left",
        arguments: When.allCases)
    func locateBar(when: When) throws {
        try expectLocate(.locateBar(3), toBar: 2, when: when)
    }

    @Test("locateLabel jumps to the first bar of section B", arguments: When.allCases)
    func locateLabel(when: When) throws {
        try expectLocate(.locateLabel("B"), toBar: 4, when: when)
    }

    private func expectLocate(_ command: TransportCommand, toBar target: Int, when: When) throws {
        let rig = try playAndSend(command, when)
        let (frame, ticks) = effect(when)
        expectApplied(rig, command, frame: frame, ticks: ticks)
        let before = beatsBefore(frame)
        let after = (0..<8).map { SampleTime((exact120(ticks) + Double($0) * 24_000).rounded()) }
        #expect(Array(rig.beats.map(\.frame).prefix(before.count + 8)) == before + after)
        let jumped = rig.beats.dropFirst(before.count).prefix(8)
        #expect(jumped.map(\.bar) == (0..<8).map { target + $0 / 4 })
        #expect(jumped.map(\.beat) == (0..<8).map { $0 % 4 })
        #expect(rig.transport.run?.position == Position(ticks: Int64(4 * target) * ppq))
    }

    @Test("load plays another map (with its own count-in) from the quantized frame", arguments: When.allCases)
    func load(when: When) throws {
        let other = try TempoMap.steady(tempo: .of(90), meter: .of(3, 4)).withCountIn(bars: 1)
        let rig = try playAndSend(.load(other), when)
        let (frame, ticks) = effect(when)
        expectApplied(rig, .load(other), frame: frame, ticks: ticks)
        let before = beatsBefore(frame)
        // 90 BPM: 32 000 frames a quarter note, from the exact frame of the position it left.
        let after = (0..<9).map { SampleTime((exact120(ticks) + Double($0) * 32_000).rounded()) }
        #expect(Array(rig.beats.map(\.frame).prefix(before.count + 9)) == before + after)
        let loaded = Array(rig.beats.dropFirst(before.count).prefix(9))
        #expect(loaded.map(\.bar) == [-1, -1, -1, 0, 0, 0, 1, 1, 1])
        #expect(loaded.map(\.isCountIn) == [true, true, true, false, false, false, false, false, false])
        #expect(rig.transport.map == other)
        #expect(rig.states == [.playing, .countingIn, .playing])
    }

    @Test("setVolume takes effect at each quantization and moves no click", arguments: When.allCases)
    func setVolume(when: When) throws {
        let rig = try playAndSend(.setVolume(0.5), when, end: 24_000 * 10)
        let (frame, ticks) = effect(when)
        expectApplied(rig, .setVolume(0.5), frame: frame, ticks: ticks)
        #expect(rig.transport.volume == 0.5)
        #expect(rig.beats.map(\.frame) == (0..<10).map { (index: Int) -> SampleTime in SampleTime(index) * 24_000 })
    }

    @Test("stop ends the run at the quantized frame; play starts again from bar 1", arguments: When.allCases)
    func stopThenPlay(when: When) throws {
        let rig = try playAndSend(.stop, when, end: 200_000)
        let (frame, ticks) = effect(when)
        expectApplied(rig, .stop, frame: frame, ticks: ticks)
        #expect(rig.beats.map(\.frame) == beatsBefore(frame))
        #expect(rig.transport.state == .stopped)
        #expect(rig.transport.heldPosition == .zero)
        let beforeCount = rig.beats.count
        rig.scheduler.send(.play, at: .frame(300_001))
        rig.advance(to: 300_001 + 24_000 * 8)
        let again = Array(rig.beats.dropFirst(beforeCount))
        let expected = (0..<8).map { (beat: Int) -> SampleTime in 300_001 + SampleTime(beat) * 24_000 }
        #expect(again.map(\.frame) == expected)
        #expect(again.map(\.bar) == [0, 0, 0, 0, 1, 1, 1, 1])
        #expect(rig.last?.position == .zero)
    }

    @Test(
        "pause holds the quantized position; resume plays on from it after the same distance", arguments: When.allCases)
    func pauseThenResume(when: When) throws {
        let rig = try playAndSend(.pause, when, end: 200_000)
        let (frame, ticks) = effect(when)
        expectApplied(rig, .pause, frame: frame, ticks: ticks)
        #expect(rig.beats.map(\.frame) == beatsBefore(frame))
        #expect(rig.transport.state == .paused)
        #expect(rig.transport.heldPosition == Position(ticks: ticks))
        let beforeCount = rig.beats.count
        let resumeFrame: SampleTime = 300_001
        rig.scheduler.send(.resume, at: .frame(resumeFrame))
        rig.advance(to: 500_000)
        expectApplied(rig, .resume, frame: resumeFrame, ticks: ticks)
        let first = firstBeat(atOrAfter: ticks)
        let again = Array(rig.beats.dropFirst(beforeCount).prefix(6))
        let expected = (0..<6).map { (k: Int) -> SampleTime in
            SampleTime(
                (Double(resumeFrame) + exact120((first + Int64(k)) * ppq) - exact120(ticks)).rounded())
        }
        #expect(again.map(\.frame) == expected)
        let positions = (0..<6).map { (k: Int) -> Position in Position(ticks: (first + Int64(k)) * ppq) }
        #expect(again.map(\.position) == positions)
    }

    @Test(
        "play from stopped and resume from paused take effect at once for every quantization without a frame; with one, at that frame"
    )
    func playAndResumeQuantized() throws {
        for when in When.allCases {
            let map = try TempoMap.steady(tempo: .of(120)).withCountIn(bars: 1)
            let rig = Rig(map)
            rig.advance(to: sentAt)
            #expect(rig.beats.isEmpty)
            rig.scheduler.send(.play, at: when.quantization)
            rig.advance(to: 400_000)
            let start: SampleTime =
                switch when {
                case .frame: 123_457
                case .beatFrom, .barFrom: 100_000
                default: sentAt
                }
            expectApplied(rig, .play, frame: start, ticks: 0)
            // Bar 1 of the music comes after the one-bar count-in.
            let played = Array(rig.beats.prefix(8))
            let beatFrames = (0..<8).map { (beat: Int) -> SampleTime in start + SampleTime(beat) * 24_000 }
            #expect(played.map(\.frame) == beatFrames, "\(when)")
            #expect(played.map(\.bar) == [-1, -1, -1, -1, 0, 0, 0, 0], "\(when)")
            #expect(rig.states == [.stopped, .countingIn, .playing], "\(when)")

            // Pause on a beat, then resume with each quantization: while paused every one is `now`.
            let paused = Rig(try TempoMap.steady(tempo: .of(120)))
            paused.scheduler.send(.play, at: .frame(0))
            paused.scheduler.send(.pause, at: .frame(36_000))
            paused.advance(to: sentAt)
            #expect(paused.beats.map(\.frame) == [0, 24_000])
            let held = firstTick(atOrAfter: 36_000)
            #expect(paused.transport.heldPosition == Position(ticks: held))
            paused.scheduler.send(.resume, at: when.quantization)
            paused.advance(to: 200_000)
            expectApplied(paused, .resume, frame: start, ticks: held)
            let next = SampleTime((Double(start) + exact120(2 * ppq) - exact120(held)).rounded())
            #expect(paused.beats.dropFirst(2).first?.frame == next, "\(when)")
        }
    }

    @Test("States: stopped → counting in → playing → paused → playing → stopped")
    func stateTransitions() throws {
        let map = try TempoMap.steady(tempo: .of(120), meter: .of(3, 4)).withCountIn(bars: 1)
        let rig = Rig(map)
        rig.advance(to: 10_000)
        #expect(rig.transport.state == .stopped)
        rig.scheduler.send(.play, at: .frame(10_000))
        rig.advance(to: 11_000)
        #expect(rig.transport.state == .countingIn)
        // The count-in is 3 beats: bar 1 of the music sounds at 10 000 + 72 000.
        rig.advance(to: 82_000)
        #expect(rig.transport.state == .countingIn)
        rig.advance(to: 83_000)
        #expect(rig.transport.state == .playing)
        rig.scheduler.send(.pause, at: .nextBar)
        rig.advance(to: 200_000)
        #expect(rig.transport.state == .paused)
        #expect(rig.last?.frame == 154_000)
        rig.scheduler.send(.resume)
        rig.advance(to: 201_000)
        #expect(rig.transport.state == .playing)
        rig.scheduler.send(.stop, at: .nextBeat)
        rig.advance(to: 300_000)
        #expect(rig.transport.state == .stopped)
        #expect(rig.last?.frame == 224_000)
        let states: [Transport.State] = [.stopped, .countingIn, .playing, .paused, .playing, .stopped]
        #expect(rig.states == states)
        let heard: [SampleTime] =
            (0..<6).map { (index: Int) -> SampleTime in 10_000 + SampleTime(index) * 24_000 } + [200_000]
        #expect(rig.beats.map(\.frame) == heard)
        #expect(rig.beats.map(\.bar) == [-1, -1, -1, 0, 0, 0, 1])
        // Play after stop starts again with the count-in.
        rig.scheduler.send(.play, at: .frame(400_000))
        rig.advance(to: 400_001)
        #expect(rig.transport.state == .countingIn)
        #expect(rig.beats.last?.frame == 400_000)
        #expect(rig.beats.last?.bar == -1)
    }

    @Test("The default quantizations: tempo and pause at the next beat, locate, clicks and load at the next bar")
    func defaults() {
        #expect(TransportCommand.setTempo(.of(90)).defaultQuantization == .nextBeat)
        #expect(TransportCommand.rampTempo(to: .of(90), beats: 4).defaultQuantization == .nextBeat)
        #expect(TransportCommand.pause.defaultQuantization == .nextBeat)
        #expect(TransportCommand.locateBar(2).defaultQuantization == .nextBar)
        #expect(TransportCommand.locateLabel("B").defaultQuantization == .nextBar)
        #expect(TransportCommand.changeClicks(.init(subdivision: 2)).defaultQuantization == .nextBar)
        #expect(TransportCommand.play.defaultQuantization == .now)
        #expect(TransportCommand.stop.defaultQuantization == .now)
        #expect(TransportCommand.resume.defaultQuantization == .now)
        #expect(TransportCommand.setVolume(1).defaultQuantization == .now)
    }
}

@Suite("Where a paused transport says it is")
struct PausedPositionTests {
    @Test(
        "Paused inside a beat, its click heard, the session names the next beat, the one that comes back on continue; paused on a beat, that beat",
        arguments: [(36_000, 3), (48_000, 3), (47_999, 3), (48_001, 4)] as [(SampleTime, Int)])
    func pausedNamesTheBeatThatComesBack(pauseFrame: SampleTime, beat: Int) throws {
        let map = try TempoMap.steady(tempo: .of(120), bars: 4)
        func session() throws -> Session {
            let session = try Session(
                map: map, clicks: Impulses.clickSet(), configuration: try MixerConfiguration(channels: 1),
                endFrame: map.endFrame)
            session.send(.pause, at: .frame(pauseFrame))
            session.send(.resume, at: .frame(120_000))
            return session
        }
        // Rendered into the pause: where it says it is.
        let paused = try session()
        try paused.render(frameCount: 60_000, to: OnsetSink(channels: 1))
        #expect(paused.state == .paused)
        let named = try #require(paused.barAndBeat)
        #expect(named.bar == 1 && named.beat == beat, "\(named)")
        // The state and the place read together say the same.
        let place = paused.place
        #expect(place.state == .paused && place.bar == 1 && place.beat == beat, "\(place)")
        #expect(place.tempo == 120 && place.meter == paused.tempoAndMeter.meter && place.sectionLabel == nil)
        // Rendered through the continue: the beat named is the first click after the gap.
        let sink = OnsetSink(channels: 1)
        try session().render(frameCount: 144_000, to: sink)
        let frames = sink.onsets.map(\.frame)
        #expect(frames.filter { $0 < pauseFrame }.count == beat - 1, "\(frames)")
        let after = try #require(frames.first { $0 >= 120_000 })
        #expect(after - 120_000 == (SampleTime(beat - 1) * 24_000 - pauseFrame + 24_000) % 24_000, "\(frames)")
    }
}

@Suite("Volume through the transport")
struct TransportVolumeTests {
    @Test("setVolume at bar 2 reaches the mixer: every later click at volume³ of its level, earlier ones untouched")
    func volumeReachesTheMixer() throws {
        let map = try TempoMap.steady(tempo: .of(120), bars: 4)
        let session = try Session(
            map: map, clicks: Impulses.clickSet(), configuration: try MixerConfiguration(channels: 1),
            endFrame: map.endFrame)
        session.send(.setVolume(0.5), at: .position(try #require(map.position(ofBar: 1))))
        let sink = OnsetSink(channels: 1)
        try session.render(frameCount: try #require(map.endFrame), to: sink)
        #expect(session.appliedCommands.map(\.command) == [.play, .setVolume(0.5), .stop])
        #expect(session.appliedCommands[1].frame == 96000)
        let before = sink.onsets.filter { $0.frame < 96000 }
        // The ramp runs across the 4096-frame block holding frame 96000 (93184 ..< 97280); after it, volume³.
        let after = sink.onsets.filter { $0.frame >= 97280 }
        let levelsBefore: [Float] = [0.8, 0.6, 0.6, 0.6]
        #expect(before.map(\.value) == levelsBefore)
        let framesAfter: [Int64] = [
            120_000, 144_000, 168_000, 192_000, 216_000, 240_000, 264_000, 288_000, 312_000, 336_000, 360_000,
        ]
        #expect(after.map(\.frame) == framesAfter)
        let levelsAfter: [Float] = [0.6, 0.6, 0.6, 0.8, 0.6, 0.6, 0.6, 0.8, 0.6, 0.6, 0.6]
        let quieter = levelsAfter.map { (level: Float) -> Float in level * 0.125 }
        #expect(after.map(\.value) == quieter)
    }
}
