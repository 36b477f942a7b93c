import MetronomeSoundFont

/// The state of one MIDI channel as the SoundFont voices read it: controllers, pitch wheel, channel pressure and
/// pitch-wheel range. Lives in `FontVoicePool`'s preallocated channel table and changes only on the render thread, at
/// the exact frame of a `channelControl` command; voices re-evaluate their modulators when `version` moves.
struct FontChannel {
    /// Controller values 0...127, by controller number.
    var controllers: InlineArray<128, UInt8>
    /// Pitch wheel 0...16383 (8192: centre).
    var pitchWheel: Int32 = 8192
    /// Channel pressure 0...127.
    var pressure: Int32 = 0
    /// Pitch-wheel range in cents (RPN 0; General MIDI's default: 2 semitones).
    var bendRangeCents: Int32 = 200
    /// Moves on every change, so a voice knows when to re-evaluate its modulators.
    var version: UInt32 = 0

    init() {
        controllers = InlineArray(repeating: 0)
        resetControllers()
        controllers[7] = 100
        controllers[10] = 64
    }

    /// What "reset all controllers" (CC 121) returns to, as General MIDI's recommended practice says: modulation,
    /// pedals and pressure off, expression full, pitch wheel centred; volume and pan are kept.
    mutating func resetControllers() {
        // Element by element, not through an array literal: this runs on the render thread (CC 121).
        controllers[1] = 0
        controllers[64] = 0
        controllers[65] = 0
        controllers[66] = 0
        controllers[67] = 0
        controllers[11] = 127
        pitchWheel = 8192
        pressure = 0
        version &+= 1
    }

    /// Whether the sustain pedal (CC 64) is down.
    var isSustaining: Bool { controllers[64] >= 64 }
}
