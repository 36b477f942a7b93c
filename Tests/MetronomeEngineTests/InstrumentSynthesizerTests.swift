import Foundation
import MetronomeModel
import MetronomeTestSupport
import Testing

@testable import MetronomeEngine

@Suite("Built-in instruments")
struct InstrumentSynthesizerTests {
    /// The piano as the closed form writes it: a `sin` and an `exp` per partial per sample, the attack and fade in
    /// `Double`, scaled to peak at 0.5.
    func closedFormPiano(frequency: Double, rate: Int) -> [Float] {
        let count = Int(2.5 * Double(rate))
        let attack = Int(0.002 * Double(rate))
        let fade = Int(0.05 * Double(rate))
        let partials = InstrumentSynthesizer.pianoPartials(frequency: frequency, rate: rate)
        var samples = [Float](repeating: 0, count: count)
        for index in 0..<count {
            let time = Double(index) / Double(rate)
            var value = 0.0
            for partial in partials {
                value += partial.amplitude * exp(-time / partial.decay) * sin(2 * Double.pi * partial.frequency * time)
            }
            if index < attack { value *= Double(index) / Double(attack) }
            let remaining = count - 1 - index
            if remaining < fade { value *= 0.5 - 0.5 * cos(Double.pi * Double(remaining) / Double(fade)) }
            samples[index] = Float(value)
        }
        let largest = samples.map(abs).max()!
        return samples.map { $0 * 0.5 / largest }
    }

    @Test(
        "The piano's recurrence equals the closed form at every sample (12, 10 and 5 partials)",
        arguments: [24, 96, 108])
    func pianoMatchesClosedForm(root: Int) {
        let frequency = 440 * pow(2, Double(root - 69) / 12)
        let partials = InstrumentSynthesizer.pianoPartials(frequency: frequency, rate: 48000)
        #expect(partials.count == [24: 12, 96: 10, 108: 5][root])
        let fast = InstrumentSynthesizer.piano(frequency: frequency, rate: 48000)
        let reference = closedFormPiano(frequency: frequency, rate: 48000)
        #expect(fast.count == 120_000)
        let difference = zip(fast, reference).map { abs($0 - $1) }.max()!
        #expect(difference < 2e-7, "largest difference \(difference)")
        #expect(fast.map(abs).max() == InstrumentSynthesizer.peak)
        #expect(fast[0] == 0 && fast[1] != 0)
        #expect(fast.last == 0)
    }

    @Test(
        "The organ is periodic in whole frames, its loop whole cycles that join seamlessly", arguments: [24, 66, 108])
    func organLoop(root: Int) throws {
        let zone = SharedBanks.organ.zone(for: root)
        #expect(zone.rootNote == root)
        let samples = zone.sample.channel(0)
        let period = Int((48000 / (440 * pow(2, Double(root - 69) / 12))).rounded())
        let loop = try #require(zone.loop)
        #expect(loop.upperBound == samples.count)
        #expect(loop.count % period == 0)
        #expect(loop.count >= 9600 - period && loop.count <= 9600)
        // Playing on from the loop's end means playing from its start: the frames a period apart are equal.
        let attack = 480
        #expect((attack..<(samples.count - period)).allSatisfy { samples[$0] == samples[$0 + period] })
        #expect(samples.map(abs).max() == InstrumentSynthesizer.peak)
        #expect(samples[0] == 0 && samples[1] != 0)
    }

    @Test("A bank has one zone per root, covering every note 0-127 once, each at the output rate")
    func zonesCoverEveryNote() {
        for bank in [SharedBanks.piano, SharedBanks.organ] {
            #expect(bank.zones.map(\.rootNote) == InstrumentSynthesizer.roots)
            #expect(bank.zones.first?.lowNote == 0 && bank.zones.last?.highNote == 127)
            #expect(zip(bank.zones, bank.zones.dropFirst()).allSatisfy { $0.highNote + 1 == $1.lowNote })
            #expect(bank.zones.allSatisfy { $0.sampleRate == 48000 && $0.sample.name.hasSuffix(" \($0.rootNote)") })
        }
        let other = InstrumentSynthesizer.bank(.piano, sampleRate: .standard)
        #expect(zip(other.zones, SharedBanks.piano.zones).allSatisfy { $0.sample.channel(0) == $1.sample.channel(0) })
    }

    @Test("A bank is made without generating a sample; each zone generates its own on first use, once")
    func zonesGenerateOnFirstUse() {
        let bank = InstrumentSynthesizer.bank(.piano, sampleRate: .standard)
        #expect(bank.zones.allSatisfy { !$0.source.isReady })
        #expect(bank.zones.map(\.release).max() == 0.25)
        let first = bank.zone(for: 60).sample
        #expect(bank.zones.filter(\.source.isReady).map(\.rootNote) == [60])
        #expect(bank.zone(for: 62).sample === first)
        #expect(first.frameCount == 120_000)
        // Eight threads asking for one zone at once all get the one buffer it generated. Each writes its own slot:
        // a Mutex here would be contended, and ThreadSanitizer cannot see a contended Synchronization.Mutex's
        // hand-over (.ci/tsan-suppressions.txt), so it reported this test's own bookkeeping as a race.
        let seen = UnsafeMutableBufferPointer<ObjectIdentifier?>.allocate(capacity: 8)
        seen.initialize(repeating: nil)
        defer { seen.deallocate() }
        nonisolated(unsafe) let slots = seen
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            slots[index] = ObjectIdentifier(bank.zone(for: 64).sample)
        }
        #expect(seen.allSatisfy { (identifier: ObjectIdentifier?) -> Bool in identifier != nil })
        let identifiers = seen.compactMap { (identifier: ObjectIdentifier?) -> ObjectIdentifier? in identifier }
        #expect(Set(identifiers).count == 1)
        #expect(bank.zones.filter(\.source.isReady).map(\.rootNote) == [60, 66])
    }
}
