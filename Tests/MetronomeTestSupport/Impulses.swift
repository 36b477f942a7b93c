import MetronomeEngine
import MetronomeFiles

/// Click sets whose sounds are single frames of distinct heights, so a render's onsets and levels can be read back
/// exactly: accent 0.8, normal 0.6, soft 0.3, subdivision 0.4 (soft subdivision 0.2).
public enum Impulses {
    /// The impulse click set: one frame each for the accent, normal, subdivision and count-in sounds.
    public static func clickSet() -> ClickSet {
        ClickSet(
            name: "impulses", summary: "test impulses",
            accent: SampleBuffer(channels: [[0.8]], name: "accent"),
            normal: SampleBuffer(channels: [[0.6]], name: "normal"),
            subdivision: SampleBuffer(channels: [[0.4]], name: "subdivision"),
            countIn: SampleBuffer(channels: [[0.7]], name: "count-in"))
    }

    /// The level an impulse of height `value` stands for, as a letter: X accent, x normal, o soft, s subdivision, so
    /// soft subdivision, C count-in, c count-in off-beat; `?value` for any other height.
    public static func level(of value: Float) -> String {
        switch value {
        case 0.8: "X"
        case 0.6: "x"
        case 0.3: "o"
        case 0.4: "s"
        case 0.2: "so"
        case 0.7: "C"
        case Float(0.7) * ClickSet.countInOffBeatGain: "c"
        default: "?\(value)"
        }
    }

    /// Writes a mono 16-bit WAV of one sample at half scale, then silence, to `path`: a `--sound-file` whose onset is
    /// its one non-zero frame, short enough for clicks 2 883 frames apart (999 BPM).
    public static func writeWAV(to path: String) throws {
        let writer = try AudioFileWriter(
            path: path, container: .wav, sampleType: .pcm16, channels: 1, sampleRate: .standard)
        var samples = [Float](repeating: 0, count: 100)
        samples[0] = 0.5
        try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: 100) }
        try writer.finish()
    }
}
