import CAllocationCounter
import MetronomeEngine
import MetronomeTestSupport
import Testing

@Suite("Real-time safety")
struct RealTimeSafetyTests {
    @Test(
        "Rendering allocates nothing: voices starting, interpolating, stealing, fading and limiting", .countsAllocations
    )
    func renderAllocatesNothing() throws {
        let tone = SampleBuffer(channels: [(0..<9600).map { Float(($0 % 97)) / 50 - 0.97 }], name: "saw")
        let stereo = SampleBuffer(
            channels: [[Float](repeating: 0.9, count: 300), [Float](repeating: -0.9, count: 300)], name: "dc")
        let ring = CommandRing(minimumCapacity: 4096)
        let mixer = Mixer(configuration: try MixerConfiguration(voiceCapacity: 8), commands: ring)
        var output = [Float](repeating: 0, count: 512 * 2)
        // Warm up once so that any lazy runtime initialisation happens outside the measurement.
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 512) }
        var allocations: UInt64 = 0
        for block in 1...400 {
            let start = Int64(block) * 512
            for voice in 0..<6 {
                ring.push(
                    .start(
                        voice.isMultiple(of: 2) ? tone.reference : stereo.reference,
                        at: start + Int64(voice * 80), gain: 1, pan: Float(voice - 3) / 3,
                        rate: 0.75 + Double(voice) * 0.1))
            }
            if block.isMultiple(of: 50) { ring.push(.fadeOutAll(at: start + 10)) }
            mixer.setMasterGain(block.isMultiple(of: 3) ? 0.8 : 1)
            output.withUnsafeMutableBufferPointer { buffer in
                let before = metronome_thread_allocation_count()
                mixer.render(into: buffer.baseAddress!, frameCount: 512)
                allocations += metronome_thread_allocation_count() - before
            }
        }
        #expect(mixer.stolenVoiceCount > 1000)
        #expect(mixer.lateEventCount == 0)
        #expect(allocations == 0)
    }

    @Test("The counter sees allocations (so the zero above means something)", .countsAllocations)
    func counterCountsAllocations() {
        let before = metronome_thread_allocation_count()
        let array = [Int](repeating: 1, count: Int.random(in: 100...200))
        #expect(metronome_thread_allocation_count() > before)
        #expect(array.count >= 100)
    }

    @Test("The command ring keeps order across threads and refuses pushes when full")
    func ringOrderAndCapacity() async throws {
        let ring = CommandRing(minimumCapacity: 8)
        #expect(ring.capacity == 8)
        for index in 0..<8 { #expect(ring.push(.fadeOutAll(at: Int64(index)))) }
        #expect(!ring.push(.fadeOutAll(at: 99)))
        for index in 0..<8 {
            #expect(ring.peek()?.frame == Int64(index))
            ring.removeFirst()
        }
        #expect(ring.peek() == nil)

        let big = CommandRing(minimumCapacity: 64)
        let total = 200_000
        let producer = Task.detached {
            var next = 0
            while next < total {
                if big.push(.fadeOutAll(at: Int64(next))) { next += 1 } else { await Task.yield() }
            }
        }
        var expected: Int64 = 0
        while expected < Int64(total) {
            if let command = big.peek() {
                #expect(command.frame == expected)
                big.removeFirst()
                expected += 1
            } else {
                await Task.yield()
            }
        }
        await producer.value
        #expect(big.count == 0)
    }
}
