/// Whether a font voice's low-pass filter runs: a type parameter of `FontVoicePool`'s period kernel, so that each
/// mode compiles to its own loop (no test per frame). Render thread.
protocol FontFilterMode {
    /// Whether the filter runs.
    static var isActive: Bool { get }
}

/// The filter runs: a cutoff below the top of its range, resonance, or a modulated cutoff.
enum FontFilterOn: FontFilterMode { static var isActive: Bool { true } }

/// The filter could not change the sound: it is skipped.
enum FontFilterOff: FontFilterMode { static var isActive: Bool { false } }
