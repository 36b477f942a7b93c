/// What is wrong with an OSC packet, a time value or an address pattern.
///
/// Decoding errors name the item and its byte offset from the start of the packet, so a dropped packet can be
/// explained (`string at byte 12 is not terminated`). `description` is the sentence to show.
public enum OSCError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A datagram with no bytes.
    case packetEmpty
    /// A packet larger than the limit (``OSCPacket/maximumSize``), decoding or encoding.
    case packetTooLarge(size: Int, limit: Int)
    /// A packet whose size is not a multiple of 4, which OSC requires.
    case packetSizeNotMultipleOfFour(size: Int)
    /// A packet or bundle element that starts with neither `/` (a message) nor `#bundle`.
    case unknownPacketStart(byte: UInt8, offset: Int)
    /// A string with no NUL before the end of its packet or bundle element.
    case stringNotTerminated(offset: Int)
    /// A string whose padding after the terminating NUL holds a nonzero byte (at `byteOffset`).
    case stringPaddingNotZero(offset: Int, byteOffset: Int)
    /// A string that is not valid UTF-8.
    case stringNotUTF8(offset: Int)
    /// A message whose address pattern is followed by something other than a type tag string starting with `,`.
    case missingTypeTags(offset: Int)
    /// A type tag this codec does not know (arrays, `r`, `m` and anything else outside ``OSCArgument``).
    case unknownTypeTag(UInt8, offset: Int)
    /// A fixed-size item (named by `item`, for instance `int32 argument`) cut short.
    case truncated(item: String, offset: Int, needed: Int, remaining: Int)
    /// A blob whose size field is negative.
    case blobSizeNegative(offset: Int, size: Int)
    /// A blob whose size, padded to a multiple of 4, is more than what remains after its size field.
    case blobTooLong(offset: Int, claimed: Int, remaining: Int)
    /// A blob whose padding holds a nonzero byte (at `byteOffset`).
    case blobPaddingNotZero(offset: Int, byteOffset: Int)
    /// A `c` argument whose 32 bits are not a byte value.
    case charOutOfRange(value: UInt32, offset: Int)
    /// A bundle nested deeper than the limit (``OSCPacket/maximumBundleDepth``), decoding or encoding.
    case bundleTooDeep(offset: Int, limit: Int)
    /// A bundle element whose size field is not positive or not a multiple of 4.
    case bundleElementSizeInvalid(offset: Int, size: Int)
    /// A bundle element claiming more bytes than remain in its bundle.
    case bundleElementTooLong(offset: Int, claimed: Int, remaining: Int)
    /// A message with bytes left over after its last argument (at `byteOffset`).
    case trailingBytes(offset: Int, byteOffset: Int, count: Int)
    /// An address pattern, or an address, that does not start with `/`.
    case addressNotSlash(String)
    /// A string to encode that holds a NUL, which an OSC string cannot carry.
    case stringContainsNUL(String)
    /// A time outside what a time tag or an `Int64` of nanoseconds can hold (NTP era 0: 1900-01-01T00:00:00Z up to
    /// 2036-02-07T06:28:16Z).
    case timeOutOfRange(nanoseconds: Int64)
    /// An address pattern with a `[` or `{` that is never closed; `character` counts Unicode scalars from 0.
    case patternUnclosed(pattern: String, character: Int, bracket: Character)
    /// An address pattern with a `]`, `}` or nested bracket where none can be; `character` counts from 0.
    case patternUnexpected(pattern: String, character: Int, found: Character)

    /// One sentence saying what is wrong and where.
    public var description: String {
        switch self {
        case .packetEmpty:
            "packet is empty"
        case .packetTooLarge(let size, let limit):
            "packet of \(size) bytes is larger than the limit of \(limit) bytes"
        case .packetSizeNotMultipleOfFour(let size):
            "packet of \(size) bytes is not a multiple of 4 bytes long"
        case .unknownPacketStart(let byte, let offset):
            "data at byte \(offset) starts with \(Self.show(byte)), not '/' (a message) or '#bundle'"
        case .stringNotTerminated(let offset):
            "string at byte \(offset) is not terminated"
        case .stringPaddingNotZero(let offset, let byteOffset):
            "string at byte \(offset) has a nonzero padding byte at byte \(byteOffset)"
        case .stringNotUTF8(let offset):
            "string at byte \(offset) is not valid UTF-8"
        case .missingTypeTags(let offset):
            "type tag string at byte \(offset) does not start with ','"
        case .unknownTypeTag(let tag, let offset):
            "unknown type tag \(Self.show(tag)) at byte \(offset)"
        case .truncated(let item, let offset, let needed, let remaining):
            "\(item) at byte \(offset) needs \(needed) bytes but \(remaining) remain"
        case .blobSizeNegative(let offset, let size):
            "blob at byte \(offset) claims \(size) bytes; a size cannot be negative"
        case .blobTooLong(let offset, let claimed, let remaining):
            "blob at byte \(offset) claims \(claimed) bytes but \(remaining) remain"
        case .blobPaddingNotZero(let offset, let byteOffset):
            "blob at byte \(offset) has a nonzero padding byte at byte \(byteOffset)"
        case .charOutOfRange(let value, let offset):
            "char at byte \(offset) is \(value), not a byte value (0-255)"
        case .bundleTooDeep(let offset, let limit):
            "bundle at byte \(offset) is nested deeper than \(limit) bundles"
        case .bundleElementSizeInvalid(let offset, let size):
            "bundle element at byte \(offset) claims \(size) bytes; a size is a positive multiple of 4"
        case .bundleElementTooLong(let offset, let claimed, let remaining):
            "bundle element at byte \(offset) claims \(claimed) bytes but \(remaining) remain"
        case .trailingBytes(let offset, let byteOffset, let count):
            "message at byte \(offset) has \(count) bytes left over at byte \(byteOffset)"
        case .addressNotSlash(let address):
            "address \(address.debugDescription) does not start with '/'"
        case .stringContainsNUL(let string):
            "string \(string.debugDescription) contains a NUL byte, which an OSC string cannot carry"
        case .timeOutOfRange(let nanoseconds):
            "time \(nanoseconds) ns is outside the range of OSC time tags (1900-01-01 up to 2036-02-07T06:28:16Z)"
        case .patternUnclosed(let pattern, let character, let bracket):
            "address pattern \(pattern.debugDescription) has an unclosed '\(bracket)' at character \(character)"
        case .patternUnexpected(let pattern, let character, let found):
            "address pattern \(pattern.debugDescription) has an unexpected '\(found)' at character \(character)"
        }
    }

    /// A byte as a quoted character when printable ASCII, else in hexadecimal (`'x'`, `0x00`).
    private static func show(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" : "") + digits
    }
}
