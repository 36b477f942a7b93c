import Foundation
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomePatterns
import MetronomeTestSupport
import Testing

/// Audible click frames of a map up to `end`, computed apart from the library from each section's parameters and the
/// definitions in Patterns/README.md: constant tempo t = 240·x/(d·T); a ramp t = 240·N/(d·ΔT)·ln(T(x)/T₀); swing as
/// the polyline through (0, 0), (L, L + ⅔·a·L), (2L, 2L) over each complete pair of a bar; layers at bar·n + k·n/c
/// beats; gap bars and silent levels play nothing.
func referenceOnsets(_ map: TempoMap, until end: Int64) -> Set<Int64> {
    let rate = Double(map.sampleRate.framesPerSecond)
    var result: Set<Int64> = []
    var start = 0.0
    for section in map.sections {
        let d = Double(section.meter.unit)
        let n = section.meter.beats
        let t0 = section.tempo.quarterNotesPerMinute
        let totalBeats = Double((section.bars ?? 1_000_000) * n)
        func seconds(_ x: Double) -> Double {
            guard let t1 = section.endTempo?.quarterNotesPerMinute else { return 240 * x / (d * t0) }
            let tx = t0 + (t1 - t0) * x / totalBeats
            return 240 * totalBeats / (d * (t1 - t0)) * (log(tx) - log(t0))
        }
        func swung(_ inBar: Double) -> Double {
            guard let swing = section.swing else { return inBar }
            let length = d / Double(swing.note)
            let pairIndex = (inBar / (2 * length)).rounded(.down)
            let pairStart = pairIndex * 2 * length
            guard pairStart + 2 * length <= Double(n) else { return inBar }
            let u = inBar - pairStart
            let peak = length + 2.0 / 3.0 * swing.amount * length
            let mapped = u <= length ? u / length * peak : peak + (u - length) / length * (2 * length - peak)
            return pairStart + mapped
        }
        func add(_ position: Double, level: BeatLevel, muted: Bool) {
            guard level != .silent, !muted, section.volume > 0 else { return }
            let frame = Int64(((start + seconds(position)) * rate).rounded(.toNearestOrAwayFromZero))
            if frame < end { result.insert(frame) }
        }
        var bar = 0
        while section.bars.map({ bar < $0 }) ?? true {
            if (start + seconds(Double(bar * n))) * rate >= Double(end) { break }
            let muted = section.gap.map { ($0.phase + bar) % ($0.play + $0.mute) >= $0.play } ?? false
            for beat in 0..<n {
                for sub in 0..<section.subdivision {
                    let inBar = Double(beat) + Double(sub) / Double(section.subdivision)
                    let level =
                        sub == 0
                        ? section.accents.levels[beat]
                        : section.subdivisionLevels[(sub - 1) % section.subdivisionLevels.count]
                    add(Double(bar * n) + swung(inBar), level: level, muted: muted)
                }
            }
            for layer in section.layers {
                for k in 0..<layer.count {
                    add(Double(bar * n) + Double(k * n) / Double(layer.count), level: layer.levels[k], muted: muted)
                }
            }
            bar += 1
        }
        guard let bars = section.bars else { break }
        start += seconds(Double(bars * n))
    }
    return result
}

/// Renders a map with one-frame impulses (main grid and layers alike) and returns the frames that sound.
func renderedOnsets(_ map: TempoMap, frames: Int64) throws -> Set<Int64> {
    let configuration = try MixerConfiguration(sampleRate: map.sampleRate, channels: 1, voiceCapacity: 256)
    let impulses = Impulses.clickSet()
    let layerClicks = Dictionary(uniqueKeysWithValues: ClickStyle.allCases.map { ($0, impulses) })
    let renderer = try Session(
        map: map, clicks: impulses, configuration: configuration, endFrame: nil, layerClicks: layerClicks)
    let sink = OnsetSink(channels: 1)
    try renderer.render(frameCount: frames, to: sink)
    return Set(sink.onsets.map(\.frame))
}

@Suite("Shipped patterns")
struct ShippedPatternTests {
    @Test("At least 12 patterns ship, each with a comment header")
    func enough() throws {
        #expect(shippedPatterns.count >= 12)
        for name in shippedPatterns {
            let text = try String(contentsOfFile: patternsFolder + "/" + name, encoding: .utf8)
            #expect(text.hasPrefix("# "), "\(name) starts with its header")
            #expect(try MetroPattern.parse(text, file: name).summary?.isEmpty == false)
        }
    }

    @Test(
        "Every shipped pattern parses, expands and renders with its onsets on the closed form",
        arguments: shippedPatterns)
    func rendersOnClosedForm(name: String) throws {
        let text = try String(contentsOfFile: patternsFolder + "/" + name, encoding: .utf8)
        let score = try MetroPattern.parse(text, file: name).score()
        let map = try score.map(sampleRate: .standard)
        // The whole pattern when it ends; 24 bars of an endless one.
        let end = try #require(map.endFrame ?? map.frame(ofBar: map.firstBar + 24))
        let rendered = try renderedOnsets(map, frames: end)
        let expected = referenceOnsets(map, until: end)
        #expect(!expected.isEmpty)
        #expect(rendered.subtracting(expected).sorted().prefix(5) == [])
        #expect(expected.subtracting(rendered).sorted().prefix(5) == [])
    }
}
