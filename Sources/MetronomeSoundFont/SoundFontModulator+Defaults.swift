extension SoundFontModulator {
    // Source enumerations (§8.2.1): bits 0–6 index, bit 7 CC flag, bit 8 direction (1 = max to min), bit 9 polarity
    // (1 = bipolar), bits 10–15 type (0 linear, 1 concave, 2 convex, 3 switch). General-controller indices: 2 note-on
    // velocity, 13 channel pressure, 14 pitch wheel, 16 pitch-wheel sensitivity. Destinations are generator numbers.

    /// §8.4.1 MIDI note-on velocity to initial attenuation: source 0x0502 (concave, negative unipolar, velocity),
    /// destination 48, amount 960 cB, no amount source, linear transform.
    public static let velocityToAttenuation = SoundFontModulator(
        source: 0x0502, destination: 48, amount: 960, amountSource: 0, transform: 0)

    /// §8.4.2 MIDI note-on velocity to filter cutoff: source 0x0102 (linear, negative unipolar, velocity),
    /// destination 8, amount −2400 cents, no amount source, linear transform.
    public static let velocityToFilterCutoff = SoundFontModulator(
        source: 0x0102, destination: 8, amount: -2400, amountSource: 0, transform: 0)

    /// §8.4.3 MIDI channel pressure to vibrato LFO pitch depth: source 0x000D (linear, positive unipolar, channel
    /// pressure), destination 6, amount 50 cents, no amount source, linear transform.
    public static let channelPressureToVibrato = SoundFontModulator(
        source: 0x000D, destination: 6, amount: 50, amountSource: 0, transform: 0)

    /// §8.4.4 MIDI CC 1 (modulation wheel) to vibrato LFO pitch depth: source 0x0081 (linear, positive unipolar,
    /// CC 1), destination 6, amount 50 cents, no amount source, linear transform.
    public static let modulationWheelToVibrato = SoundFontModulator(
        source: 0x0081, destination: 6, amount: 50, amountSource: 0, transform: 0)

    /// §8.4.5 MIDI CC 7 (volume) to initial attenuation: source 0x0587 (concave, negative unipolar, CC 7),
    /// destination 48, amount 960 cB, no amount source, linear transform. (The 2.01 text printed 0x0582, whose index
    /// contradicts its own "index = 7"; 0x0587 is the controller the section names.)
    public static let volumeToAttenuation = SoundFontModulator(
        source: 0x0587, destination: 48, amount: 960, amountSource: 0, transform: 0)

    /// §8.4.6 MIDI CC 10 (pan) to pan: source 0x028A (linear, positive bipolar, CC 10), destination 17 (pan; some
    /// printings of the table say "initial attenuation" by mistake), amount 1000 (0.1 %), no amount source, linear
    /// transform.
    public static let panToPan = SoundFontModulator(
        source: 0x028A, destination: 17, amount: 1000, amountSource: 0, transform: 0)

    /// §8.4.7 MIDI CC 11 (expression) to initial attenuation: source 0x058B (concave, negative unipolar, CC 11),
    /// destination 48, amount 960 cB, no amount source, linear transform.
    public static let expressionToAttenuation = SoundFontModulator(
        source: 0x058B, destination: 48, amount: 960, amountSource: 0, transform: 0)

    /// §8.4.8 MIDI CC 91 to reverb effects send: source 0x00DB (linear, positive unipolar, CC 91), destination 16,
    /// amount 200 (0.1 %), no amount source, linear transform.
    public static let reverbToReverbSend = SoundFontModulator(
        source: 0x00DB, destination: 16, amount: 200, amountSource: 0, transform: 0)

    /// §8.4.9 MIDI CC 93 to chorus effects send: source 0x00DD (linear, positive unipolar, CC 93), destination 15,
    /// amount 200 (0.1 %), no amount source, linear transform.
    public static let chorusToChorusSend = SoundFontModulator(
        source: 0x00DD, destination: 15, amount: 200, amountSource: 0, transform: 0)

    /// §8.4.10 MIDI pitch wheel to initial pitch, scaled by the pitch-wheel sensitivity: source 0x020E (linear,
    /// positive bipolar, pitch wheel), destination 59 (initial pitch, a modulator-only destination), amount 12700
    /// cents, amount source 0x0010 (linear, positive unipolar, pitch-wheel sensitivity), linear transform.
    public static let pitchWheelToInitialPitch = SoundFontModulator(
        source: 0x020E, destination: 59, amount: 12700, amountSource: 0x0010, transform: 0)

    /// The ten default modulators of SoundFont 2.04 §8.4, in the specification's order. Every voice starts with
    /// them; an identical instrument modulator (same source, destination, amount source and transform) replaces
    /// one, a preset modulator adds to it (§9.5).
    public static let defaults: [SoundFontModulator] = [
        velocityToAttenuation, velocityToFilterCutoff, channelPressureToVibrato, modulationWheelToVibrato,
        volumeToAttenuation, panToPan, expressionToAttenuation, reverbToReverbSend, chorusToChorusSend,
        pitchWheelToInitialPitch,
    ]

    /// The defaults every voice starts with: all of them but velocity to filter cutoff (§8.4.2). With it, General
    /// MIDI fonts voiced without a filter in mind (TimGM6mb, FluidR3_GM) turn dull below full velocity — a note at
    /// velocity 64 loses an octave of brightness; players disagree about it (FluidSynth applies it only from velocity
    /// 64 up, MuseScore removed it), and the fonts were made to sound right without it. A font's own velocity
    /// modulators still apply.
    public static let applied: [SoundFontModulator] = defaults.filter { $0 != velocityToFilterCutoff }
}
