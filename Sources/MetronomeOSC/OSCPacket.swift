/// The unit OSC sends: one message or one bundle, as one UDP datagram.
///
/// Encoding and decoding follow OSC 1.0: big-endian numbers, every item padded to a multiple of 4 bytes, strings
/// NUL-terminated, blobs length-prefixed, a type tag string starting with `,`, bundles starting with `#bundle`.
/// Decoding never traps: every length is checked against what remains, and whatever is wrong is an ``OSCError`` that
/// names the item and its byte offset in the packet.
///
/// Limits, checked both ways so that whatever encodes also decodes:
/// - a packet is at most ``maximumSize`` bytes (64 KiB, a little under the largest UDP datagram over IPv4);
/// - bundles nest at most ``maximumBundleDepth`` deep, the outermost bundle counting as 1.
public enum OSCPacket: Sendable, Equatable {
    /// A single message.
    case message(OSCMessage)
    /// A bundle of messages and bundles.
    case bundle(OSCBundle)

    /// The largest packet encoded or decoded: 65,536 bytes.
    public static let maximumSize = 65_536

    /// The deepest nesting of bundles: 8, the outermost bundle counting as 1.
    public static let maximumBundleDepth = 8

    /// The packet's bytes.
    ///
    /// - Returns: the encoded packet, a multiple of 4 bytes long.
    /// - Throws: ``OSCError`` when an address pattern does not start with `/`, a string holds a NUL, bundles nest
    ///   deeper than ``maximumBundleDepth`` or the result exceeds ``maximumSize``.
    /// - Complexity: O(n) in the encoded size.
    public func encoded() throws(OSCError) -> [UInt8] {
        var writer = OSCWriter()
        try writer.write(self, depth: 0)
        if writer.bytes.count > Self.maximumSize {
            throw .packetTooLarge(size: writer.bytes.count, limit: Self.maximumSize)
        }
        return writer.bytes
    }

    /// Decodes one packet.
    ///
    /// A message that ends right after its address pattern (no type tag string, as some OSC 1.0 senders do) has no
    /// arguments; any bytes left after a message's arguments are an error.
    ///
    /// - Parameter bytes: one datagram's contents.
    /// - Throws: ``OSCError`` naming what is malformed and its byte offset.
    /// - Complexity: O(n) in `bytes.count`.
    public init(decoding bytes: [UInt8]) throws(OSCError) {
        if bytes.isEmpty { throw .packetEmpty }
        if bytes.count > Self.maximumSize { throw .packetTooLarge(size: bytes.count, limit: Self.maximumSize) }
        if bytes.count % 4 != 0 { throw .packetSizeNotMultipleOfFour(size: bytes.count) }
        var reader = OSCReader(bytes: bytes)
        self = try reader.readPacket(end: bytes.count, depth: 0)
    }
}
