import Foundation
import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import MetronomePatterns
import MetronomeTestSupport
import Testing

/// The shape of Patterns/song.metro, written out so that this test does not follow edits of the shipped file:
/// a count-in, 36 bars of 4/4 at 112, a 7/8 bridge (eighth = 224), a ramp 112 → 124, a 6/8 outro (dotted quarter =
/// 60) and a ritardando 112 → 70.
private let song = """
    count-in 1
    tempo 112
    meter 4/4

    intro: 4 bars accent Xoxo
    form: repeat 2
      verse: 8 bars subdivide 2 o
      chorus: 8 bars accent XxXx
    end
    bridge: 6 bars meter 7/8 2+2+3 tempo 8=224
    build: 2 bars tempo 112-124
    outro: 4 bars meter 6/8 3+3 tempo 4.=60
    ending: 2 bars meter 4/4 tempo 112-70 volume 80%
    """

private let ppq: Int64 = 28_828_800

private func songMap() throws -> TempoMap {
    try MetroPattern.parse(song, file: "song.metro").score().map(sampleRate: .standard)
}

/// The seconds of klick's ramp over N beats of a 1/d note from T₀ to T₁ (quarter notes per minute), at beat x.
private func rampSeconds(_ x: Double, beats n: Double, unit d: Double, from t0: Double, to t1: Double) -> Double {
    240 * n / (d * (t1 - t0)) * log(1 + (t1 - t0) * x / (n * t0))
}

/// Every beat of the song's sections from the bridge on, as exact seconds after the bridge's downbeat, with the
/// label and the meter of its section, when every tempo is multiplied by `factor`.
private func beatsFromBridge(factor: Double) -> [(seconds: Double, label: String, meter: Meter)] {
    var result: [(Double, String, Meter)] = []
    // Bridge: 6 bars of 7/8 at eighth = 224 · factor.
    let eighth = 60 / (224 * factor)
    result += (0..<42).map { (Double($0) * eighth, "bridge", .of(7, 8)) }
    var start = 42 * eighth
    // Build: 2 bars of 4/4 ramping 112 → 124 over 8 quarter beats.
    let (t0, t1) = (112 * factor, 124 * factor)
    result += (0..<8).map { (start + rampSeconds(Double($0), beats: 8, unit: 4, from: t0, to: t1), "build", .of(4, 4)) }
    start += rampSeconds(8, beats: 8, unit: 4, from: t0, to: t1)
    // Outro: 4 bars of 6/8 at dotted quarter = 60 · factor, so an eighth lasts 60 / (3 · 60 · factor) s.
    let outroEighth = 60 / (180 * factor)
    result += (0..<24).map { (start + Double($0) * outroEighth, "outro", .of(6, 8)) }
    start += 24 * outroEighth
    // Ending: 2 bars of 4/4 ramping 112 → 70.
    let (e0, e1) = (112 * factor, 70 * factor)
    result += (0..<8).map {
        (start + rampSeconds(Double($0), beats: 8, unit: 4, from: e0, to: e1), "ending", .of(4, 4))
    }
    return result
}

/// Plays the song from frame 0 with one command at a position, to its end.
private func play(_ command: TransportCommand, at position: Position) throws -> Rig {
    let rig = Rig(try songMap())
    rig.scheduler.send(.play, at: .frame(0))
    rig.scheduler.send(command, at: .position(position))
    rig.advance(to: 6_000_000, step: 2400)
    return rig
}

@Suite("A song scaled by a live tempo change keeps its structure")
struct SongScalingTests {
    @Test("setTempo 140 on beat 3 of bar 2: every later beat, the 7/8 bridge included, lands on its scaled frame")
    func tempoChangeScalesTheRest() throws {
        // Count-in (4 beats) + bar 1 (4 beats) + 2 beats of bar 2: quarter beat 10 of the map.
        let edit = Position(ticks: 10 * ppq)
        let rig = try play(.setTempo(.of(140)), at: edit)
        let map = try #require(rig.playedMap)
        let applied = try #require(rig.transport.applied.first { $0.command == .setTempo(.of(140)) })
        // 10 quarter beats at 112: 10 · 60/112 s.
        let editSeconds = 10 * 60 / 112.0
        #expect(applied.frame == SampleTime((editSeconds * 48_000).rounded()))
        #expect(applied.position == edit)

        // Before the edit, beats at 112; after it at 140 up to the bridge, which begins 138 quarter beats later:
        // 10 · 60/112 + 138 · 60/140 = 64.5 s, frame 3 096 000.
        let bridgeSeconds = editSeconds + 138 * 60 / 140.0
        #expect((bridgeSeconds * 48_000).rounded() == 3_096_000)
        var expected: [SampleTime] = (0..<10).map { (beat: Int) -> SampleTime in
            SampleTime((Double(beat) * 60 / 112 * 48_000).rounded())
        }
        expected += (0..<138).map { (beat: Int) -> SampleTime in
            SampleTime(((editSeconds + Double(beat) * 60 / 140) * 48_000).rounded())
        }
        let rest = beatsFromBridge(factor: 140 / 112.0)
        expected += rest.map { (beat: (seconds: Double, label: String, meter: Meter)) -> SampleTime in
            SampleTime(((bridgeSeconds + beat.seconds) * 48_000).rounded())
        }
        #expect(rig.beats.count == expected.count)
        #expect(rig.beats.map(\.frame) == expected)

        let fromBridge = Array(rig.beats.suffix(rest.count))
        #expect(fromBridge.map { map.sections[$0.section].label } == rest.map(\.label))
        #expect(fromBridge.map(\.meter) == rest.map(\.meter))
        let bridge = fromBridge.filter { map.sections[$0.section].label == "bridge" }
        #expect(bridge.count == 42)
        #expect(bridge.first?.frame == 3_096_000)
        #expect(bridge.map(\.beat) == (0..<42).map { $0 % 7 })
        // The song still ends, on the ending's last beat's successor: transport stopped.
        #expect(rig.transport.state == .stopped)
    }

    @Test("A live meter change in the intro keeps every later section's own meter and tempo")
    func meterChangeKeepsLaterMeters() throws {
        // Bar 2 of the music: the last 3 bars of the intro become 3/4 (9 beats instead of 12).
        let rig = try play(.changeClicks(TempoMap.ClickChange(meter: .of(3, 4))), at: Position(ticks: 8 * ppq))
        let map = try #require(rig.playedMap)
        let labels = rig.beats.map { map.sections[$0.section].label ?? "" }
        let intro = rig.beats.enumerated().filter { labels[$0.offset] == "intro" }.map(\.element)
        let introMeters: [Meter] = Array(repeating: .of(4, 4), count: 4) + Array(repeating: .of(3, 4), count: 9)
        #expect(intro.map(\.meter) == introMeters)
        #expect(intro.map(\.bar) == [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])
        for (label, meter) in [("verse", Meter.of(4, 4)), ("chorus", .of(4, 4)), ("bridge", .of(7, 8))] {
            #expect(
                rig.beats.enumerated().filter { labels[$0.offset] == label }.allSatisfy { $0.element.meter == meter })
        }
        // Nothing else moved: 4 + 13 + 128 quarter beats at 112 before the bridge, then the song as written.
        let bridgeSeconds = 145 * 60 / 112.0
        var expected = (0..<145).map { (beat: Int) -> SampleTime in
            SampleTime((Double(beat) * 60 / 112 * 48_000).rounded())
        }
        let rest = beatsFromBridge(factor: 1)
        expected += rest.map { (beat: (seconds: Double, label: String, meter: Meter)) -> SampleTime in
            SampleTime(((bridgeSeconds + beat.seconds) * 48_000).rounded())
        }
        #expect(rig.beats.map(\.frame) == expected)
        #expect(Array(labels.suffix(rest.count)) == rest.map(\.label))
        #expect(rig.beats.suffix(rest.count).map(\.meter) == rest.map(\.meter))
        // Bars are renumbered by the shorter intro only in its own bars: the bridge still starts at bar 36.
        #expect(labels.firstIndex(of: "bridge").map { rig.beats[$0].bar } == 36)
    }
}
