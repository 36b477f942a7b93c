import CAllocationCounter
import Foundation
import MetronomeEngine
import MetronomeTestSupport
import Testing

/// Renders `frames` mono frames of whatever the ring holds.
func renderMono(_ mixer: Mixer, frames: Int, block: Int = 256) -> [Float] {
    var result: [Float] = []
    var buffer = [Float](repeating: 0, count: block)
    var done = 0
    while done < frames {
        let count = min(block, frames - done)
        buffer.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: count) }
        result += buffer[0..<count]
        done += count
    }
    return result
}

@Suite("Notes in the mixer: release, loops, chords in one publication")
struct NoteMixerTests {
    @Test("A release starts on its exact frame and fades linearly to zero over the release time")
    func releaseIsFrameExact() throws {
        let constant = SampleBuffer(channels: [[Float](repeating: 0.5, count: 48000)], name: "dc")
        let ring = CommandRing()
        let mixer = Mixer(configuration: try MixerConfiguration(channels: 1), commands: ring)
        ring.push(
            .startNote(constant.reference, at: 100, gain: 1, pan: 0, rate: 1, tag: 7, loop: nil, releaseFrames: 400))
        ring.push(.release(tag: 7, at: 1000))
        let out = renderMono(mixer, frames: 2000)
        #expect(out[0..<100].allSatisfy { $0 == 0 })
        #expect(out[100..<1000].allSatisfy { $0 == 0.5 })
        // Frame 1000 is the first of the 400-frame fade, at full gain; each frame after loses 1/400 of it.
        #expect(out[1000] == 0.5)
        #expect(abs(out[1199] - 0.5 * 201 / 400) < 1e-5)
        #expect(abs(out[1399] - 0.5 / 400) < 1e-5)
        #expect(out[1400...].allSatisfy { $0 == 0 })
        #expect(mixer.activeVoiceCount == 0)
    }

    @Test("A looped sample sustains past its end until the note is released; other tags are untouched")
    func loopSustains() throws {
        // 100 frames: a ramp 0.000 … 0.495 (below the limiter's knee); loop 50..<100.
        let ramp = SampleBuffer(channels: [(0..<100).map { Float($0) / 200 }], name: "ramp")
        let ring = CommandRing()
        let mixer = Mixer(configuration: try MixerConfiguration(channels: 1), commands: ring)
        ring.push(
            .startNote(ramp.reference, at: 0, gain: 1, pan: 0, rate: 1, tag: 1, loop: 50..<100, releaseFrames: 10))
        ring.push(.startNote(ramp.reference, at: 0, gain: 0, pan: 0, rate: 1, tag: 2, loop: nil, releaseFrames: 10))
        ring.push(.release(tag: 2, at: 500))
        ring.push(.release(tag: 1, at: 1000))
        let out = renderMono(mixer, frames: 1100)
        let rampValues = (0..<100).map { (frame: Int) -> Float in Float(frame) / 200 }
        #expect(out[0..<100] == ArraySlice(rampValues))
        // After the end it keeps cycling 0.250 … 0.495.
        #expect(out[100] == 0.25)
        #expect(out[149] == 0.495)
        #expect(out[950] == 0.25)
        #expect(out[1010...].allSatisfy { $0 == 0 })
        #expect(out[1005] != 0)
    }

    @Test("A note released before its start never sounds")
    func releasedBeforeStart() throws {
        let constant = SampleBuffer(channels: [[Float](repeating: 0.5, count: 4800)], name: "dc")
        let ring = CommandRing()
        let mixer = Mixer(configuration: try MixerConfiguration(channels: 1), commands: ring)
        ring.push(.release(tag: 3, at: 10))
        ring.push(
            .startNote(constant.reference, at: 600, gain: 1, pan: 0, rate: 1, tag: 3, loop: nil, releaseFrames: 1))
        ring.push(.release(tag: 3, at: 700))
        let out = renderMono(mixer, frames: 1000, block: 1024)
        #expect(out[600..<700].allSatisfy { $0 == 0.5 })
        #expect(out[701...].allSatisfy { $0 == 0 })
    }

    @Test("A batch is published whole or not at all")
    func batchPush() {
        let ring = CommandRing(minimumCapacity: 8)
        #expect(ring.push(contentsOf: (0..<6).map { MixerCommand.fadeOutAll(at: Int64($0)) }))
        #expect(!ring.push(contentsOf: (0..<3).map { MixerCommand.fadeOutAll(at: Int64($0)) }))
        #expect(ring.count == 6)
        #expect(ring.push(contentsOf: (6..<8).map { MixerCommand.fadeOutAll(at: Int64($0)) }))
        #expect(ring.freeCount == 0)
    }

    @Test("Notes with loops and releases allocate nothing while rendering", .countsAllocations)
    func notesAllocateNothing() throws {
        let tone = SampleBuffer(channels: [(0..<4800).map { sinf(Float($0) * 0.06) * 0.5 }], name: "sine")
        let ring = CommandRing(minimumCapacity: 4096)
        let mixer = Mixer(configuration: try MixerConfiguration(voiceCapacity: 16), commands: ring)
        var output = [Float](repeating: 0, count: 512 * 2)
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 512) }
        var allocations: UInt64 = 0
        for block in 1...300 {
            let start = Int64(block) * 512
            var chord: [MixerCommand] = []
            for note in 0..<4 {
                let pan = Float(note) / 4
                let rate = 1 + Double(note) * 0.26
                let tag = UInt32(block * 4 + note)
                chord.append(
                    .startNote(
                        tone.reference, at: start + 17, gain: 0.3, pan: pan, rate: rate, tag: tag, loop: 1000..<4000,
                        releaseFrames: 300))
                if block > 2 { chord.append(.release(tag: tag - 8, at: start + 100)) }
            }
            ring.push(contentsOf: chord)
            output.withUnsafeMutableBufferPointer { buffer in
                let before = metronome_thread_allocation_count()
                mixer.render(into: buffer.baseAddress!, frameCount: 512)
                allocations += metronome_thread_allocation_count() - before
            }
        }
        #expect(allocations == 0)
        #expect(mixer.lateEventCount == 0)
    }
}
