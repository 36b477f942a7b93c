import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeOSC
import Synchronization
import Testing

@testable import MetronomeService

/// Loads every name as a steady 100 BPM map and keeps the options each load asked for.
private struct RecordingPatterns: PatternLoading {
    let loads: Locked<[PatternOptions]>

    func map(named name: String, tempoScale: Double?, countIn: Int?, sampleRate: SampleRate)
        throws(PatternUnavailable) -> TempoMap
    {
        loads.withLock { $0.append(PatternOptions(tempoScale: tempoScale, countIn: countIn)) }
        return try! TempoMap.steady(tempo: BPM(100))
    }
}

/// An address space of the tests' own: `/probe/one` answers and announces a meter change, `/probe/two` refuses;
/// settling answers with the number of changes announced.
private struct ProbeSpace: OSCAddressSpace {
    var settled = 0

    static let handlers: [String: Handler] = [
        "/probe/one": { _, _, context throws(Rejection) in
            context.batch.replies.append((.message(OSCMessage("/probe/did", [.string("one")])), context.batch.sender))
            context.announce(.meter)
        },
        "/probe/two": { _, _, _ throws(Rejection) in throw Rejection("never") },
    ]

    mutating func settle(_ changes: [ServiceChange], in context: inout ServiceContext) {
        settled += 1
        let reply = OSCMessage("/probe/settled", [.int32(Int32(settled)), .int32(Int32(changes.count))])
        context.batch.replies.append((.message(reply), context.batch.sender))
    }
}

/// A service over an idle session whose replies and pattern loads are kept.
private struct Service {
    let service: OSCService
    let sent = Locked<[(OSCPacket, OSCEndpoint)]>([])
    let loads = Locked<[PatternOptions]>([])
    static let client = OSCEndpoint.loopback(port: 9000)

    init(spaces: [any OSCAddressSpace]? = nil) throws {
        let session = try Session(
            map: TempoMap.steady(tempo: BPM(120)), clicks: ClickSynthesizer.clickSet(.wood, sampleRate: .standard),
            configuration: MixerConfiguration())
        let settings = ServiceSettings(
            bank: InstrumentSynthesizer.bank(.piano, sampleRate: .standard), patterns: RecordingPatterns(loads: loads))
        let sent = self.sent
        let transmit: @Sendable (OSCPacket, OSCEndpoint) -> Void = { packet, endpoint in
            sent.withLock { $0.append((packet, endpoint)) }
        }
        if let spaces {
            service = try OSCService(session: session, settings: settings, spaces: spaces, transmit: transmit)
        } else {
            service = try OSCService(session: session, settings: settings, transmit: transmit)
        }
    }

    func send(_ address: String, _ arguments: [OSCArgument] = []) {
        service.handle(.message(OSCMessage(address, arguments)), from: Service.client)
    }

    /// The messages sent since the last call, with where they went.
    func take() -> [(OSCMessage, OSCEndpoint)] {
        sent.withLock { list in
            defer { list = [] }
            return list.compactMap { packet, endpoint in
                if case .message(let message) = packet { (message, endpoint) } else { nil }
            }
        }
    }
}

@Suite("The address spaces over the service core")
struct AddressSpaceTests {
    @Test("klick's preroll and tempo multiplier shape every pattern loaded, /metronome/pattern's too")
    func klickMapSettingsApplyToOurPatterns() throws {
        let harness = try Service()
        harness.send("/metronome/pattern", [.string("song")])
        harness.send("/klick/map/set_preroll", [.int32(2)])
        harness.send("/klick/map/set_tempo_multiplier", [.float32(0.5)])
        harness.send("/metronome/pattern", [.string("song")])
        harness.send("/klick/map/load_file", [.string("song")])
        harness.send("/klick/map/set_tempo_multiplier", [.float32(1)])
        harness.send("/metronome/pattern", [.string("song")])
        #expect(
            harness.loads.withLock { $0 } == [
                PatternOptions(), PatternOptions(tempoScale: 0.5, countIn: 2),
                PatternOptions(tempoScale: 0.5, countIn: 2), PatternOptions(tempoScale: nil, countIn: 2),
            ])
        #expect(harness.service.droppedCount == 0)
    }

    @Test("klick's registered clients hear its simple state after a tempo set through /metronome/tempo")
    func ourTempoReachesKlickClients() throws {
        let harness = try Service()
        let client = OSCEndpoint.loopback(port: 9998)
        harness.send("/klick/register_client", [.string("osc.udp://127.0.0.1:9998/")])
        harness.send("/metronome/tempo", [.float32(90)])
        let notified = harness.take()
        #expect(notified.map(\.1).allSatisfy { $0 == client })
        #expect(
            notified.map(\.0.addressPattern) == [
                "/klick/simple/tempo", "/klick/simple/tempo_increment", "/klick/simple/tempo_limit",
                "/klick/simple/current_tempo", "/klick/simple/meter", "/klick/simple/pattern",
            ])
        #expect(notified.first?.0 == OSCMessage("/klick/simple/tempo", [.float32(90)]))
        // A message that changes nothing klick reports tells it nothing.
        harness.send("/metronome/subdivide", [.int32(2)])
        #expect(harness.take().isEmpty)
    }

    @Test("The core routes a pattern to every space in address order, counts one refusal, and settles every space once")
    func coreRoutesThroughTheProtocol() throws {
        let harness = try Service(spaces: [ProbeSpace(), KlickAddressSpace()])
        harness.send("/probe/*")
        let replies = harness.take().map(\.0)
        #expect(
            replies == [
                OSCMessage("/probe/did", [.string("one")]), OSCMessage("/probe/settled", [.int32(1), .int32(1)]),
            ])
        #expect(harness.service.droppedCount == 1)
        #expect(harness.service.lastErrorMessage == "/probe/two: never")
        harness.send("/metronome/play")
        #expect(harness.service.lastErrorMessage == "/metronome/play: unknown address")
        harness.send("/*/ping")
        #expect(
            harness.take().map(\.0) == [
                OSCMessage("/klick/pong"), OSCMessage("/probe/settled", [.int32(2), .int32(0)]),
            ])
    }
}
