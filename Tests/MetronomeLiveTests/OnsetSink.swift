import MetronomeEngine

/// A sink that keeps every non-zero frame of the left channel (frame, value): the onsets of an impulse render.
final class OnsetSink: AudioSink {
    let channels: Int
    private(set) var onsets: [(frame: Int64, value: Float)] = []
    private(set) var frames: Int64 = 0
    private(set) var peak: Float = 0

    init(channels: Int) { self.channels = channels }

    func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws {
        for frame in 0..<frameCount {
            let value = samples[frame * channels]
            if value != 0 { onsets.append((frames + Int64(frame), value)) }
            for channel in 0..<channels { peak = max(peak, abs(samples[frame * channels + channel])) }
        }
        frames += Int64(frameCount)
    }
}
