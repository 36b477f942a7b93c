import CAllocationCounter
import Foundation
import Testing

@testable import MetronomeEngine
@testable import MetronomeKit
@testable import MetronomeLive
@testable import MetronomeModel
@testable import MetronomeMusic
@testable import MetronomePatterns

/// Click sets whose sounds are single frames of distinct heights, so a render's onsets and levels can be read back
/// exactly: accent 0.8, normal 0.6, soft 0.3, subdivision 0.4 (soft subdivision 0.2).
enum Impulses {
    static func clickSet() -> ClickSet {
        ClickSet(
            name: "impulses", summary: "test impulses",
            accent: SampleBuffer(channels: [[0.8]], name: "accent"),
            normal: SampleBuffer(channels: [[0.6]], name: "normal"),
            subdivision: SampleBuffer(channels: [[0.4]], name: "subdivision"),
            countIn: SampleBuffer(channels: [[0.7]], name: "count-in"))
    }

    static func level(of value: Float) -> String {
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
}

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

extension BPM {
    static func of(_ value: Double) -> BPM { try! BPM(value) }
}

extension Meter {
    static func of(_ beats: Int, _ unit: Int) -> Meter { try! Meter(beats: beats, unit: unit) }
}

extension Trait where Self == ConditionTrait {
    /// Runs a test that asserts allocation counts only where the counter wraps malloc: in the normal suite, not
    /// under ThreadSanitizer or AddressSanitizer (.ci/sanitize), whose runtimes own the allocator.
    static var countsAllocations: Self {
        .enabled(
            if: metronome_allocation_counting() != 0,
            "allocation counting is off under a sanitizer (its runtime owns malloc); this test runs in the normal suite"
        )
    }
}
