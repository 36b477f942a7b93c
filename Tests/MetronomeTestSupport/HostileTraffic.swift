import MetronomeOSC

/// One datagram `metronome serve` must refuse without any effect, and how many drops it must count for it.
public struct HostileDatagram: Sendable {
    /// The bytes sent.
    public var bytes: [UInt8]
    /// Packets and messages the service counts as dropped: 1 for a packet that does not decode, otherwise 1 per
    /// message (in any bundle, at any depth); 0 for an empty bundle.
    public var drops: Int
    /// How it was made.
    public var kind: HostileKind
}

/// The kinds of hostile datagram `HostileTraffic` makes.
public enum HostileKind: String, CaseIterable, Sendable {
    /// Random bytes, sometimes starting like a message or a bundle.
    case noise
    /// A random packet with bytes replaced.
    case flipped
    /// A random or a refused packet cut short.
    case cut
    /// A refused message with a type tag no reader knows.
    case badTypeTag
    /// A refused message whose address padding is not zero (or whose terminator is not).
    case badPadding
    /// A message whose blob claims more bytes than the packet has, or a negative count.
    case hugeBlob
    /// Bundles nested deeper than the codec allows.
    case tooDeep
    /// Bundles nested to the limit, refused messages at every level.
    case deepBundle
    /// A message to an address the service does not have.
    case unknownAddress
    /// A message to a real address with arguments it refuses (`/metronome/tempo ,s fast`, `/metronome/note ,ii 300 1`).
    case wrongArguments
    /// A pattern matching several real addresses, each refusing the arguments.
    case patternWrongArguments
    /// An immediate bundle of refused messages, one to six.
    case bundle
    /// An immediate bundle with nothing in it (valid, nothing dropped).
    case emptyBundle
    /// A random valid packet that reaches no real address.
    case random
    /// A 60,000-byte message to an unknown address.
    case large
}

/// Seeded hostile OSC traffic for `metronome serve`: every datagram either fails to decode or decodes to messages
/// that the service refuses (unknown addresses, or real addresses with wrong arguments), so a stream of them must
/// leave the session exactly as it was while the service counts each drop.
///
/// Random and mutated bytes that happen to decode are kept only when no message in them could reach a real address
/// (by name or by pattern) and every bundle in them is immediate (a timed bundle would apply, and be counted, later);
/// otherwise another is drawn.
public struct HostileTraffic: Sendable {
    private let addresses: [String]

    /// Traffic for a service with these addresses.
    public init(addresses: some Sequence<String>) {
        self.addresses = Array(addresses)
    }

    /// Messages to real addresses that every handler must refuse, each counted once.
    public static let wrongArguments: [OSCMessage] = [
        OSCMessage("/metronome/tempo", [.string("fast")]),
        OSCMessage("/metronome/tempo", [.float32(5000)]),
        OSCMessage("/metronome/tempo", [.float32(.nan)]),
        OSCMessage("/metronome/tempo", []),
        OSCMessage("/metronome/tempo", [.float32(120), .string("later")]),
        OSCMessage("/metronome/tempo/ramp", [.float32(130), .int32(0)]),
        OSCMessage("/metronome/note", [.int32(300), .int32(1)]),
        OSCMessage("/metronome/note", [.int32(60), .int32(200)]),
        OSCMessage("/metronome/note", [.int32(60), .int32(100), .int32(16)]),
        OSCMessage("/metronome/note", [.string("C4"), .int32(100)]),
        OSCMessage("/metronome/volume", [.float32(2)]),
        OSCMessage("/metronome/volume", [.blob([1, 2, 3])]),
        OSCMessage("/metronome/meter", [.int32(0), .int32(4)]),
        OSCMessage("/metronome/meter", [.int32(4), .int32(3)]),
        OSCMessage("/metronome/accent", [.string("Q")]),
        OSCMessage("/metronome/subdivide", [.int32(0)]),
        OSCMessage("/metronome/swing", [.float32(90)]),
        OSCMessage("/metronome/sound", [.string("kazoo")]),
        OSCMessage("/metronome/pattern", [.int32(3)]),
        OSCMessage("/metronome/locate", [.int32(0)]),
        OSCMessage("/metronome/chord", [.string("C"), .float32(0)]),
        OSCMessage("/metronome/arp", [.string("C"), .string("sideways")]),
        OSCMessage("/metronome/play", [.int32(1)]),
        OSCMessage("/metronome/stop", [.string("now")]),
        OSCMessage("/metronome/pause", [.bool(true)]),
        OSCMessage("/metronome/quit", [.int32(1)]),
        OSCMessage("/metronome/subscribe", [.int32(0)]),
        OSCMessage("/metronome/query", [.int32(1)]),
        OSCMessage("/klick/simple/set_tempo", [.string("x")]),
        OSCMessage("/klick/config/set_sound", [.int32(7)]),
        OSCMessage("/klick/metro/set_type", [.string("jack")]),
        OSCMessage("/klick/quit", [.null]),
    ]

    /// Patterns that match several real addresses, every one of which refuses the arguments: one drop each.
    public static let patternWrongArguments: [OSCMessage] = [
        OSCMessage("/metronome/{tempo,volume}", [.string("x")]),
        OSCMessage("/klick/simple/set_tempo*", [.string("x")]),
        OSCMessage("/metronome/{play,stop,pause,continue}", [.int32(1)]),
    ]

    /// The next datagram.
    public func next(using random: inout SplitMix) -> HostileDatagram {
        // Large datagrams are rare: a burst of them would overflow a socket's receive queue, which is not the test.
        let common = HostileKind.allCases.filter { $0 != .large }
        let kind =
            Int.random(in: 0..<500, using: &random) == 0
            ? .large : common[Int.random(in: 0..<common.count, using: &random)]
        while true {
            if let datagram = attempt(kind, using: &random) { return datagram }
        }
    }

    private func attempt(_ kind: HostileKind, using random: inout SplitMix) -> HostileDatagram? {
        func made(_ bytes: [UInt8], _ drops: Int) -> HostileDatagram {
            HostileDatagram(bytes: bytes, drops: drops, kind: kind)
        }
        func classified(_ bytes: [UInt8]) -> HostileDatagram? { drops(for: bytes).map { made(bytes, $0) } }
        switch kind {
        case .noise:
            return classified(PacketGenerator.noise(using: &random))
        case .flipped:
            return classified(try! PacketGenerator.mutated(using: &random))
        case .cut:
            if Bool.random(using: &random) { return classified(try! PacketGenerator.truncated(using: &random)) }
            let bytes = encode(.message(refused(using: &random)))
            return classified(Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random))))
        case .badTypeTag:
            var message = refused(using: &random)
            if message.arguments.isEmpty { message.arguments = [.int32(1)] }
            var bytes = encode(.message(message))
            bytes[paddedLength(message.addressPattern) + 1] = UInt8(ascii: "x")
            return classified(bytes)
        case .badPadding:
            let message = refused(using: &random)
            var bytes = encode(.message(message))
            bytes[paddedLength(message.addressPattern) - 1] = 0x41
            return classified(bytes)
        case .hugeBlob:
            var bytes = encode(.message(OSCMessage("/metronome/volume", [.blob([1, 2, 3, 4])])))
            let claimed: UInt32 = Bool.random(using: &random) ? 0x7FFF_FFF0 : 0xFFFF_FFFF
            bytes.replaceSubrange((bytes.count - 8)..<(bytes.count - 4), with: bigEndian(claimed))
            return classified(bytes)
        case .tooDeep:
            var packet = OSCPacket.message(refused(using: &random))
            for _ in 0...OSCPacket.maximumBundleDepth { packet = .bundle(OSCBundle([packet])) }
            return classified(encodeUnchecked(packet))
        case .deepBundle:
            var packet = OSCPacket.message(refused(using: &random))
            var messages = 1
            for _ in 1..<OSCPacket.maximumBundleDepth {
                let extra = Int.random(in: 0...2, using: &random)
                packet = .bundle(OSCBundle([packet] + (0..<extra).map { _ in .message(refused(using: &random)) }))
                messages += extra
            }
            return made(encode(.bundle(OSCBundle([packet]))), messages)
        case .unknownAddress:
            return made(encode(.message(unknown(using: &random))), 1)
        case .wrongArguments:
            return made(encode(.message(Self.wrongArguments.randomElement(using: &random)!)), 1)
        case .patternWrongArguments:
            return made(encode(.message(Self.patternWrongArguments.randomElement(using: &random)!)), 1)
        case .bundle:
            let messages = (0..<Int.random(in: 1...6, using: &random)).map { _ in
                OSCPacket.message(refused(using: &random))
            }
            return made(encode(.bundle(OSCBundle(messages))), messages.count)
        case .emptyBundle:
            return made(encode(.bundle(OSCBundle([]))), 0)
        case .random:
            return classified(encode(PacketGenerator.packet(depth: 0, using: &random)))
        case .large:
            let blob = (0..<60_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            return made(encode(.message(OSCMessage("/metronome/large", [.blob(blob)]))), 1)
        }
    }

    /// The drops a datagram counts: 1 when it does not decode, else one per message; nil when it decodes to a
    /// packet whose effect cannot be predicted (a message that may reach a real address, or a timed bundle).
    public func drops(for bytes: [UInt8]) -> Int? {
        guard let packet = try? OSCPacket(decoding: bytes) else { return 1 }
        return refusals(packet)
    }

    private func refusals(_ packet: OSCPacket) -> Int? {
        switch packet {
        case .message(let message):
            return reachesRealAddress(message.addressPattern) ? nil : 1
        case .bundle(let bundle):
            guard bundle.timeTag.isImmediate else { return nil }
            var total = 0
            for element in bundle.elements {
                guard let count = refusals(element) else { return nil }
                total += count
            }
            return total
        }
    }

    private func reachesRealAddress(_ pattern: String) -> Bool {
        if addresses.contains(pattern) { return true }
        guard pattern.contains(where: { "*?[{".contains($0) }), let compiled = try? OSCAddressPattern(pattern) else {
            return false
        }
        return addresses.contains { compiled.matches($0) }
    }

    /// A refused message: wrong arguments to a real address, or an unknown address.
    private func refused(using random: inout SplitMix) -> OSCMessage {
        Int.random(in: 0..<3, using: &random) == 0
            ? unknown(using: &random) : Self.wrongArguments.randomElement(using: &random)!
    }

    private func unknown(using random: inout SplitMix) -> OSCMessage {
        let names = [
            "/metronome/tempox", "/metronome", "/klick/nothing", "/foo", "/metronome/tempo/", "/METRONOME/PLAY",
        ]
        let arguments = (0..<Int.random(in: 0...3, using: &random)).map { _ in PacketGenerator.argument(using: &random)
        }
        return OSCMessage(names.randomElement(using: &random)!, arguments)
    }

    private func encode(_ packet: OSCPacket) -> [UInt8] { try! packet.encoded() }

    /// Encodes a packet deeper than the encoder allows, by hand: bundles around a message.
    private func encodeUnchecked(_ packet: OSCPacket) -> [UInt8] {
        switch packet {
        case .message: return encode(packet)
        case .bundle(let bundle):
            var bytes = Array("#bundle".utf8) + [0] + bigEndian(UInt32(bundle.timeTag.rawValue >> 32))
            bytes += bigEndian(UInt32(truncatingIfNeeded: bundle.timeTag.rawValue))
            for element in bundle.elements {
                let inner = encodeUnchecked(element)
                bytes += bigEndian(UInt32(inner.count)) + inner
            }
            return bytes
        }
    }

    private func paddedLength(_ address: String) -> Int { (address.utf8.count / 4 + 1) * 4 }

    private func bigEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }
}
