import MetronomeKit
import Testing

/// The library example from README.md, compiled against the public API only.
@Suite("README example")
struct ReadmeExampleTests {
    final class Collect: AudioSink {
        var frames: [Float] = []
        func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws {
            frames.append(contentsOf: UnsafeBufferPointer(start: samples, count: frameCount * 2))
        }
    }

    @Test("Four bars of 4/4 then a 7/8 ramp with off-beats renders to the map's end frame")
    func example() throws {
        let map = try TempoMap(sections: [
            try TempoSection(bars: 4, meter: Meter(beats: 4, unit: 4), tempo: BPM(100)),
            try TempoSection(
                bars: 8, meter: Meter(beats: 7, unit: 8), tempo: BPM(100), endTempo: BPM(140), subdivision: 2),
        ])
        let clicks = ClickSynthesizer.clickSet(.clave, sampleRate: .standard)
        let render = try Session(
            map: map, clicks: clicks, configuration: try MixerConfiguration(), endFrame: map.endFrame)
        let sink = Collect()
        try render.render(frameCount: map.endFrame!, to: sink)

        #expect(sink.frames.count == Int(map.endFrame!) * 2)
        // 16 beats of 4/4 at 100 BPM take 9.6 s; the ramp's first downbeat sounds there.
        #expect(map.frame(ofBar: 4) == 460_800)
        #expect(sink.frames[460_800 * 2] != 0)
        #expect(sink.frames[(460_800 - 1) * 2] == 0)
        #expect(render.scheduledClickCount == 16 + 8 * 7 * 2)
        #expect(render.mixer.lateEventCount == 0)
    }
}
