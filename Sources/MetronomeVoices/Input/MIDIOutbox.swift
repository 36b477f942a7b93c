import MetronomeModel

/// A MIDI message of one to three bytes, as it goes out on a wire or a JACK MIDI port.
public struct MIDIMessage: Sendable, Hashable, CustomStringConvertible {
    /// The status byte and up to two data bytes (those past `length` are 0).
    public private(set) var status: UInt8
    public private(set) var data1: UInt8
    public private(set) var data2: UInt8
    /// How many of the bytes count: 1 to 3.
    public private(set) var length: UInt8

    /// A message from its bytes; data bytes are kept to 7 bits.
    public init(_ status: UInt8, _ data1: UInt8? = nil, _ data2: UInt8? = nil) {
        self.status = status
        self.data1 = (data1 ?? 0) & 0x7F
        self.data2 = (data2 ?? 0) & 0x7F
        length = data2 != nil ? 3 : data1 != nil ? 2 : 1
    }

    /// Timing clock (F8): 24 a quarter note.
    public static let clock = MIDIMessage(0xF8)
    /// Start (FA): the receiver plays from the top on the next clock.
    public static let start = MIDIMessage(0xFA)
    /// Continue (FB): the receiver plays on from its song position on the next clock.
    public static let `continue` = MIDIMessage(0xFB)
    /// Stop (FC).
    public static let stop = MIDIMessage(0xFC)

    /// The largest song position a Song Position Pointer carries: 14 bits of sixteenth notes.
    public static let maximumSongPosition = 16_383

    /// Song Position Pointer (F2): sixteenth notes (6 clocks each) from the song's top, kept to 0...16383.
    public static func songPosition(_ sixteenths: Int) -> MIDIMessage {
        let value = min(maximumSongPosition, max(0, sixteenths))
        return MIDIMessage(0xF2, UInt8(value & 0x7F), UInt8(value >> 7))
    }

    /// Note on, channel 0...15, key and velocity 0...127 (velocity 0 is a note off by the standard).
    public static func noteOn(channel: Int, key: Int, velocity: Int) -> MIDIMessage {
        MIDIMessage(0x90 | UInt8(min(15, max(0, channel))), UInt8(min(127, max(0, key))), UInt8(min(127, max(0, velocity))))
    }

    /// Note off, channel 0...15, key 0...127, release velocity 64.
    public static func noteOff(channel: Int, key: Int) -> MIDIMessage {
        MIDIMessage(0x80 | UInt8(min(15, max(0, channel))), UInt8(min(127, max(0, key))), 64)
    }

    /// Whether it starts a note (a stop lets no new note through; clocks run on to the Stop).
    package var isNoteOn: Bool { status & 0xF0 == 0x90 && data2 > 0 }

    /// The bytes in hexadecimal ("F2 10 00").
    public var description: String {
        [status, data1, data2].prefix(Int(length)).map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + text : text
        }.joined(separator: " ")
    }
}

/// The MIDI messages of the mixer's last render call, each with its frame, for an output that sends MIDI (JACK's
/// `midi_out`) to read right after the call. Fixed capacity, allocated once; written and read on the render thread
/// only, so neither side allocates or locks. Messages that do not fit are counted and dropped.
public final class MIDIOutbox: @unchecked Sendable {
    // @unchecked: touched only by the render thread (the mixer fills it inside `render`, the output reads it after
    // `render` returns, on the same thread), `droppedCount` included.
    /// How many messages one render call can carry.
    public let capacity: Int
    private let frames: UnsafeMutablePointer<SampleTime>
    private let messages: UnsafeMutablePointer<MIDIMessage>
    /// Messages held now.
    public private(set) var count = 0
    /// Messages dropped because a render call had more than `capacity`. Render thread.
    public private(set) var droppedCount = 0

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
        frames = .allocate(capacity: self.capacity)
        messages = .allocate(capacity: self.capacity)
    }

    deinit {
        frames.deallocate()
        messages.deallocate()
    }

    /// The `index`th message (in frame order) and the mixer frame it belongs on. Render thread.
    public subscript(index: Int) -> (frame: SampleTime, message: MIDIMessage) {
        precondition(index >= 0 && index < count)
        return (frames[index], messages[index])
    }

    package func removeAll() { count = 0 }

    package func append(_ message: MIDIMessage, at frame: SampleTime) {
        guard count < capacity else {
            droppedCount += 1
            return
        }
        (frames + count).initialize(to: frame)
        (messages + count).initialize(to: message)
        count += 1
    }
}
