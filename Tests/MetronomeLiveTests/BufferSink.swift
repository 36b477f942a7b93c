import MetronomeEngine

/// A sink that keeps everything (for short renders).
final class BufferSink: AudioSink {
    let channels: Int
    private(set) var samples: [Float] = []

    init(channels: Int) { self.channels = channels }

    func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws {
        self.samples.append(contentsOf: UnsafeBufferPointer(start: samples, count: frameCount * channels))
    }

    func channel(_ index: Int) -> [Float] {
        stride(from: index, to: samples.count, by: channels).map { samples[$0] }
    }
}
