// SoundFonts: any bytes, read as `--soundfont FONT` reads a font (SoundFont(bytes:); an SF3's compressed samples are
// refused here, as no decoder is given: the Ogg decoding is libsndfile's, fuzzed through the audio harness). A refusal must be a SoundFontError with a printable message. A font that reads must give
// every preset's zones inside their sample data, and a note of each preset must sound through the mixer — voices
// set up, rendered and released — without leaving ±1 by more than the limiter allows or producing a NaN.
import FuzzSupport
import MetronomeKit

let ring = CommandRing(minimumCapacity: 4096)
let mixer = Mixer(configuration: try! MixerConfiguration(maximumBlockFrames: 512, fontPolyphony: 32), commands: ring)
var output = [Float](repeating: 0, count: 1024)
var frame: SampleTime = 0

fuzz { bytes in
    let font: SoundFont
    do throws(SoundFontError) { font = try SoundFont(bytes: bytes) } catch {
        _ = error.description
        return
    }
    for preset in font.presets.prefix(8) {
        for zone in font.zones(of: preset) {
            require(zone.start >= 0 && zone.end <= zone.dataFrameCount, "a zone outside its sample data")
        }
        let zones = font.zones(preset: preset, key: 60, velocity: 100)
        for (index, zone) in zones.prefix(8).enumerated() {
            _ = ring.push(
                .startFontVoice(zone, at: frame, channel: index, key: 60, velocity: 100, gain: 1, tag: UInt32(index + 1)))
            _ = ring.push(.release(tag: UInt32(index + 1), at: frame + 300))
        }
    }
    _ = ring.push(.fadeOutAll(at: frame + 900))
    for _ in 0..<4 {
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 512) }
        require(output.allSatisfy { $0.isFinite && abs($0) <= 1 }, "a sample beyond ±1 or not finite")
        frame += 512
    }
    withExtendedLifetime(font) {}
}
