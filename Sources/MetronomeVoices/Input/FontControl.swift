/// The controls a `MixerCommand.channelControl` sets: a controller number 0...127, or one of these.
public enum FontControl {
    /// Pitch wheel, value 0...16383.
    public static let pitchWheel: UInt8 = 128
    /// Channel pressure, value 0...127.
    public static let channelPressure: UInt8 = 129
    /// Pitch-wheel range in cents (RPN 0), value 0...12700.
    public static let bendRange: UInt8 = 130
}
