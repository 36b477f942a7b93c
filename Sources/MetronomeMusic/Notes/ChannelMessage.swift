/// A channel message that is not a note — what a MIDI file changes on a channel — carried by a `NoteEvent` at its
/// frame. Values are MIDI's own: controllers and pressure 0...127, pitch wheel 0...16383 (8192 centre).
public enum ChannelMessage: Sendable, Hashable {
    /// Control change `number` to `value`.
    case controller(number: Int, value: Int)
    /// Program change (the bank is the last bank select, CC 0, before it).
    case program(Int)
    /// Pitch wheel.
    case pitchWheel(Int)
    /// Channel pressure (aftertouch).
    case channelPressure(Int)
}
