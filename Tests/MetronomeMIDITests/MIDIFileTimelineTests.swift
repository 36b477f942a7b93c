import MetronomeModel
import MetronomeTestSupport
import Testing

@testable import MetronomeMIDI

@Suite("Standard MIDI Files: the timeline")
struct MIDIFileTimelineTests {
    /// A tempo change at a tick: microseconds per quarter note.
    typealias Change = (ticks: Int64, microseconds: Int64)

    /// round(frames) of `ticks` with exact integer arithmetic: seconds = Σ ticksᵢ · µsᵢ / (division · 10⁶), ties
    /// away from zero.
    static func exactFrame(ticks: Int64, division: Int64, tempos: [Change], rate: Int64) -> Int64 {
        var sum: Int64 = 0
        for (index, change) in tempos.enumerated() where change.ticks < ticks {
            let next = index + 1 < tempos.count ? min(tempos[index + 1].ticks, ticks) : ticks
            sum += (next - change.ticks) * change.microseconds
        }
        let numerator = sum * rate
        let denominator = division * 1_000_000
        return (2 * numerator + denominator) / (2 * denominator)
    }

    /// A file: tempo changes in the first track (the one at tick 37 in the second, as some files do), notes at odd
    /// ticks in the second.
    static func song(division: Int, tempos: [Change], notes: [Int64]) -> MIDIFile {
        var conductor: [MIDITrackEvent] = []
        var player: [MIDITrackEvent] = []
        for change in tempos {
            let event = MIDITrackEvent(ticks: change.ticks, .tempo(microsecondsPerQuarter: UInt32(change.microseconds)))
            if change.ticks == 37 { player.append(event) } else { conductor.append(event) }
        }
        for tick in notes {
            player.append(MIDITrackEvent(ticks: tick, .noteOn(channel: 0, key: 60, velocity: 100)))
        }
        player.sort { $0.ticks < $1.ticks }
        return MIDIFile(
            format: .simultaneousTracks, division: .ticksPerQuarter(division),
            tracks: [MIDITrack(events: conductor), MIDITrack(events: player)])
    }

    @Test("Every event's frame is round(exact seconds × rate): divisions 96, 480, 960, tempo changes at odd ticks")
    func exactFrames() throws {
        let tempos: [Change] = [(0, 500_000), (37, 461_538), (1001, 400_000), (2223, 750_000), (4097, 333_333)]
        let notes: [Int64] = Array(stride(from: 0, through: 6001, by: 1)).filter { $0 % 7 == 0 || $0 % 13 == 1 }
        for division in [96, 480, 960] {
            for rate in [44_100, 48_000, 96_000] {
                let file = Self.song(division: division, tempos: tempos, notes: notes)
                let sequence = try file.timeline(sampleRate: try SampleRate(rate))
                #expect(sequence.events.count == notes.count)
                let segments = sequence.tempoMap.tempoSegments
                #expect(segments.map { $0.tempo(atBeat: 0) } == tempos.map { 60_000_000 / Double($0.microseconds) })
                #expect(segments.map(\.start.ticks) == tempos.map { $0.ticks * 28_828_800 / Int64(division) })
                for (event, tick) in zip(sequence.events, notes) {
                    let expected = Self.exactFrame(
                        ticks: tick, division: Int64(division), tempos: tempos, rate: Int64(rate))
                    #expect(sequence.tempoMap.frame(at: event.position) == expected, "tick \(tick) at \(division)")
                }
            }
        }
    }

    @Test("SMPTE 25 × 40: every tick a millisecond, exactly, whatever tempo events say; the map at 125 BPM")
    func smpteFrames() throws {
        var file = Self.song(division: 96, tempos: [(0, 500_000), (300, 400_000)], notes: [0, 1, 333, 999, 4001])
        file.division = .smpte(framesPerSecond: 25, ticksPerFrame: 40)
        let sequence = try file.timeline(sampleRate: try SampleRate(44_100))
        #expect(sequence.tempoMap.tempoSegments.count == 1 && sequence.tempoMap.tempo(at: .zero) == 125)
        for (event, tick) in zip(sequence.events, [Int64(0), 1, 333, 999, 4001]) {
            #expect(sequence.tempoMap.frame(at: event.position) == (tick * 44_100 * 2 + 1000) / 2000)
        }
        file.division = .smpte(framesPerSecond: 24, ticksPerFrame: 4)
        #expect(try file.timeline().tempoMap.tempo(at: .zero) == 120)
        file.division = .smpte(framesPerSecond: 29, ticksPerFrame: 4)
        let drop = try file.timeline(sampleRate: try SampleRate(48_000))
        // 29.97 × 4 ticks a second; a tick is 1001/120000 s: tick 4001 at 4001 · 1001 · 48000 / 120000 frames.
        #expect(drop.tempoMap.frame(at: drop.events[4].position) == (4001 * 1001 * 48_000 * 2 + 120_000) / 240_000)
    }

    @Test("Meters: 4/4 by default; a change off the bar line leaves a short bar; the map ends on a bar line")
    func meters() throws {
        func signature(_ ticks: Int64, _ numerator: UInt8, _ power: UInt8) -> MIDITrackEvent {
            MIDITrackEvent(
                ticks: ticks,
                .timeSignature(
                    numerator: numerator, denominatorPower: power, clocksPerClick: 24, thirtySecondsPerQuarter: 8))
        }
        let plain = MIDIFile(
            format: .singleTrack, division: .ticksPerQuarter(96),
            tracks: [MIDITrack(events: [MIDITrackEvent(ticks: 385, .endOfTrack)])])
        let steady = try plain.timeline().tempoMap
        #expect(steady.sections.map(\.meter) == [.fourFour] && steady.sections.map(\.bars) == [2])
        #expect(steady.tempo(at: .zero) == 120 && steady.isFinite)
        let file = MIDIFile(
            format: .singleTrack, division: .ticksPerQuarter(96),
            tracks: [
                MIDITrack(events: [
                    signature(0, 4, 2), signature(96 * 6, 3, 2),  // 1½ bars of 4/4: a bar of 2/4 closes them
                    // 1½ quarters and 2 ticks into 3/4: a bar of 3/8, 7/8 from the last whole 32nd before it
                    signature(96 * 6 + 144 + 2, 7, 3),
                    signature(96 * 6 + 144 + 2 * 7 * 48, 7, 3),  // the same meter on a bar line: nothing changes
                    MIDITrackEvent(ticks: 96 * 6 + 144 + 2 * 7 * 48 + 1, .endOfTrack),
                ])
            ])
        let map = try file.timeline().tempoMap
        let meters = [Meter.of(4, 4), .of(2, 4), .of(3, 8), .of(7, 8)]
        #expect(map.sections.map(\.meter) == meters && map.sections.map(\.bars) == [1, 1, 1, 3])
        let quarters: [Double] = [0, 4, 6, 7.5, 18]
        #expect(map.startTicks.map(\.ticks) == quarters.map { Int64($0 * 28_828_800) })
        // Part bars in the longest beat up to a quarter that divides them, longer beats past 64, else split.
        let parts: [(Int64, Meter)] = [(12, .of(3, 8)), (7, .of(7, 32)), (64, .of(8, 4)), (66 * 8, .of(33, 2))]
        for (thirtySeconds, meter) in parts {
            #expect(try MIDIMeterTrack.shortBars(thirtySeconds: thirtySeconds, tempo: .of(120)).map(\.meter) == [meter])
        }
        #expect(
            try MIDIMeterTrack.shortBars(thirtySeconds: 127, tempo: .of(120)).map(\.meter)
                == [Meter(beats: 64, unit: 32), Meter(beats: 63, unit: 32)])
    }

    @Test("Channel events and markers in play order: by position, then track, then file order; 1000 BPM at most")
    func order() throws {
        let file = MIDIFile(
            format: .simultaneousTracks, division: .ticksPerQuarter(1000),
            tracks: [
                MIDITrack(events: [
                    MIDITrackEvent(ticks: 0, .text(.marker, Array("Intro".utf8))),
                    MIDITrackEvent(ticks: 3, .programChange(channel: 2, program: 1)),
                    MIDITrackEvent(ticks: 3, .text(.marker, Array("A".utf8))),
                ]),
                MIDITrack(events: [
                    MIDITrackEvent(ticks: 1, .noteOn(channel: 9, key: 36, velocity: 1)),
                    MIDITrackEvent(ticks: 3, .noteOn(channel: 9, key: 38, velocity: 2)),
                    MIDITrackEvent(ticks: 3, .noteOff(channel: 9, key: 36, velocity: 3)),
                ]),
            ])
        let sequence = try file.timeline()
        // 1000 does not divide 28,828,800: a tick is 28,828.8 positions, rounded to the nearest.
        #expect(sequence.events.map(\.position.ticks) == [28_829, 86_486, 86_486, 86_486])
        #expect(sequence.events.map(\.track) == [1, 0, 1, 1] && sequence.events.map(\.channel) == [9, 2, 9, 9])
        #expect(sequence.events[2].event == .noteOn(channel: 9, key: 38, velocity: 2))
        #expect(
            sequence.markers == [
                MIDIMarker(position: .zero, track: 0, name: "Intro"),
                MIDIMarker(position: Position(ticks: 86_486), track: 0, name: "A"),
            ])

        var fast = file
        fast.tracks[0].events.append(MIDITrackEvent(ticks: 5, .tempo(microsecondsPerQuarter: 59_999)))
        #expect(
            throws: InvalidValue(
                value: "tempo 59999 µs per quarter note (track 1, tick 5)",
                reason: "faster than 1000 BPM, the fastest tempo (60000 µs per quarter note)")
        ) { try fast.timeline() }
        var odd = file
        odd.tracks[1].events.append(
            MIDITrackEvent(
                ticks: 5,
                .timeSignature(numerator: 4, denominatorPower: 6, clocksPerClick: 24, thirtySecondsPerQuarter: 8)))
        #expect(
            throws: InvalidValue(
                value: "time signature 4/64 (track 2, tick 5)", reason: "the beat unit must be 1, 2, 4, 8, 16 or 32")
        ) {
            try odd.timeline()
        }
    }

    @Test("A 1 MB file of a meter and a tempo change on every tick builds its timeline in one pass")
    func manyChanges() throws {
        var body: [UInt8] = []
        for index in 0..<60_000 {
            let meter: [UInt8] = index % 2 == 0 ? [3, 2] : [5, 3]
            body += [0x01, 0xFF, 0x58, 0x04] + meter + [24, 8]
            body += [0x00, 0xFF, 0x51, 0x03, 0x07, UInt8(0xA1 + index % 8), 0x20]
        }
        let file = try MIDIFile(parsing: SMF.file(format: 0, division: 1, body))
        let map = try file.timeline().tempoMap
        #expect(map.tempoSegments.count == 60_000 && map.sections.count == 60_000)  // each change cuts a bar of 1/4
        #expect(map.endPosition == Position(ticks: 60_000 * 28_828_800))
    }
}
