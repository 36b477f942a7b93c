import MetronomeOSC
import MetronomeTestSupport
import Testing

@Suite("Seeded sweeps: random packets round-trip; random, mutated and cut bytes never trap")
struct OSCSweepTests {
    @Test("20,000 random valid packets round-trip exactly, bytes and values")
    func validPackets() throws {
        var random = SplitMix(seed: 2024)
        var bundles = 0
        for _ in 0..<20_000 {
            let packet = PacketGenerator.packet(depth: 0, using: &random)
            if case .bundle = packet { bundles += 1 }
            let bytes = try packet.encoded()
            let decoded = try OSCPacket(decoding: bytes)
            #expect(decoded == packet)
            #expect(try decoded.encoded() == bytes)
        }
        #expect(bundles > 5_000)
    }

    @Test("50,000 random, mutated and truncated byte strings decode to a packet or a typed error")
    func hostileBytes() throws {
        var random = SplitMix(seed: 0xBAD_C0DE)
        var decoded = 0
        var errors: [String: Int] = [:]
        for round in 0..<50_000 {
            let bytes: [UInt8]
            switch round % 3 {
            case 0: bytes = PacketGenerator.noise(using: &random)
            case 1: bytes = try PacketGenerator.mutated(using: &random)
            default: bytes = try PacketGenerator.truncated(using: &random)
            }
            do {
                let packet = try OSCPacket(decoding: bytes)
                decoded += 1
                // Whatever decodes is a packet like any other: it encodes and decodes to itself.
                #expect(try OSCPacket(decoding: packet.encoded()) == packet)
            } catch {
                #expect(!error.description.isEmpty)
                errors[Mirror(reflecting: error).children.first?.label ?? error.description, default: 0] += 1
            }
        }
        #expect(decoded > 1_000)
        // The sweep reaches most of the decoder's checks.
        #expect(errors.count >= 14, "errors seen: \(errors)")
    }
}
