import Foundation
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomePatterns
import MetronomeTestSupport
import Testing

@Suite("klick tempo maps rendered")
struct KlickMapRenderTests {
    @Test("Onsets equal klick's semantics in closed form, including a ramp and a tempo per beat")
    func onsetsMatchClosedForm() throws {
        let map = try KlickMap.parse(KlickSong.text, file: "song.klick")
        var expected: [Int64] = []
        var seconds = 0.0
        for beat in 0..<8 { expected.append(Int64(((seconds + Double(beat) * 0.5) * 48000).rounded())) }
        seconds += 8 * 0.5
        // 4 bars of 7/8 from 100 to 140: t(x) = 240·N/(d·ΔT)·ln(T(x)/T₀), N = 28, d = 8.
        for beat in 0..<28 {
            let t = 240.0 * 28 / (8 * 40) * log((100 + 40 * Double(beat) / 28) / 100)
            if "X.xX.x.".map({ $0 })[beat % 7] != "." { expected.append(Int64(((seconds + t) * 48000).rounded())) }
        }
        seconds += 240.0 * 28 / (8 * 40) * log(140.0 / 100)
        for tempo in [90.0, 100, 110, 120, 130, 140, 150, 160, 170] {
            expected.append(Int64((seconds * 48000).rounded()))
            seconds += 240 / (4 * tempo)
        }
        let renderer = try Session(
            map: map, clicks: Impulses.clickSet(), configuration: try MixerConfiguration(channels: 1), endFrame: nil)
        let sink = OnsetSink(channels: 1)
        try renderer.render(frameCount: try #require(map.endFrame), to: sink)
        #expect(sink.onsets.map(\.frame) == expected)
        #expect(map.endFrame == Int64((seconds * 48000).rounded()))
    }
}
