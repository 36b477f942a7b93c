import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeOSC
import MetronomeTestSupport
import Synchronization
import Testing

@testable import MetronomeService

/// Keeps the left channel of a stereo render.
private final class LeftChannel: AudioSink {
    private(set) var samples: [Float] = []

    func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws {
        for frame in 0..<frameCount { self.samples.append(samples[2 * frame]) }
    }
}

/// No pattern loads: the fuzzed `/metronome/pattern` and `/klick/map/load_file` are refused without touching a file.
private struct NoPatterns: PatternLoading {
    func map(named name: String, tempoScale: Double?, countIn: Int?, sampleRate: SampleRate)
        throws(PatternUnavailable) -> TempoMap
    {
        throw PatternUnavailable("no patterns here")
    }
}

@Suite("OSCService under hostile traffic, offline")
struct OSCServiceFuzzTests {
    @Test(
        "100,000 seeded random, mutated and refused datagrams: nothing traps, every drop is counted exactly, the click stays on its 24000-frame grid"
    )
    func hostileDatagramsAreCountedAndHarmless() throws {
        let session = try Session(
            map: TempoMap.steady(tempo: BPM(120)), clicks: ClickSynthesizer.clickSet(.wood, sampleRate: .standard),
            configuration: MixerConfiguration())
        let replies = Atomic<Int>(0)
        let settings = ServiceSettings(
            bank: InstrumentSynthesizer.bank(.piano, sampleRate: .standard), patterns: NoPatterns())
        let service = try OSCService(session: session, settings: settings) { _, _ in
            replies.add(1, ordering: .relaxed)
        }
        let traffic = HostileTraffic(addresses: MetronomeAddressSpace.addresses + KlickAddressSpace.addresses)
        let sender = OSCEndpoint.loopback(port: 9000)
        let sink = LeftChannel()
        var random = SplitMix(seed: 0x5E_4E_F0_22)
        var expected = 0
        var kinds: [HostileKind: Int] = [:]
        var mismatches: [String] = []
        for index in 0..<100_000 {
            let before = service.droppedCount
            let drops: Int
            if index % 1000 == 999 {
                // Longer than a packet may be: the socket cuts it and says so.
                service.handle([UInt8](repeating: 0x2F, count: 64), truncated: true, from: sender)
                drops = 1
            } else {
                let datagram = traffic.next(using: &random)
                kinds[datagram.kind, default: 0] += 1
                service.handle(datagram.bytes, from: sender)
                drops = datagram.drops
                if service.droppedCount - before != drops, mismatches.count < 5 {
                    mismatches.append("\(datagram.kind) \(datagram.bytes): \(service.droppedCount - before)")
                }
            }
            expected += drops
            if index % 250 == 249 { try session.render(frameCount: 4096, to: sink) }
        }
        #expect(mismatches.isEmpty, "datagrams counted other than expected: \(mismatches)")
        #expect(service.receivedCount == 100_000)
        #expect(service.droppedCount == expected)
        #expect(expected > 100_000, "bundles of several refused messages count each")
        #expect(Set(kinds.keys) == Set(HostileKind.allCases), "kinds seen: \(kinds)")
        #expect(!service.lastErrorMessage.isEmpty)

        // Nothing reached the session: no reply, no subscriber, no quit, the click at 120 BPM on every 24000th frame.
        #expect(replies.load(ordering: .relaxed) == 0)
        #expect(service.subscriberCount == 0)
        #expect(!service.quitRequested)
        #expect(service.lateBundleCount == 0)
        #expect(session.mixer.lateEventCount == 0)
        #expect(session.tempoAndMeter.tempo == 120)
        let found = onsets(sink.samples)
        #expect(sink.samples.count == 400 * 4096)
        #expect(found == Array(stride(from: 0, to: sink.samples.count, by: 24000)))
    }

    @Test("A pattern matching several addresses that all refuse its arguments counts one drop, and keeps the reason")
    func patternRefusedByEveryMatchCountsOnce() throws {
        let session = try Session(
            map: TempoMap.steady(tempo: BPM(120)), clicks: ClickSynthesizer.clickSet(.wood, sampleRate: .standard),
            configuration: MixerConfiguration())
        let settings = ServiceSettings(
            bank: InstrumentSynthesizer.bank(.piano, sampleRate: .standard), patterns: NoPatterns())
        let service = try OSCService(session: session, settings: settings) { _, _ in }
        let sender = OSCEndpoint.loopback(port: 9000)
        service.handle(.message(OSCMessage("/metronome/{tempo,volume}", [.string("x")])), from: sender)
        #expect(service.droppedCount == 1)
        #expect(service.lastErrorMessage == "/metronome/volume: the volume must be a number, got s \"x\"")
        let bundle = OSCBundle([
            .message(OSCMessage("/metronome/{tempo,volume}", [.string("x")])),
            .message(OSCMessage("/nothing", [])),
            .bundle(OSCBundle([.message(OSCMessage("/metronome/note", [.int32(300), .int32(1)]))])),
        ])
        service.handle(.bundle(bundle), from: sender)
        #expect(service.droppedCount == 4)
        #expect(service.lastErrorMessage == "/metronome/note: the note must be 0 to 127, got 300")
    }
}
