import MetronomeMusic

/// How a click becomes a General MIDI percussion note on channel 10 when a click track is exported
/// (`MIDIExport`): a key and a velocity per sound, following the sounds the mixer plays (`ClickSet.sound(for:)`).
///
/// The General MIDI mapping (`generalMIDI`):
///
/// | click                                                | key                          | velocity  |
/// |------------------------------------------------------|------------------------------|-----------|
/// | accented beat                                        | 76 Hi Wood Block             | 127       |
/// | normal beat, accented subdivision                    | 77 Low Wood Block            | 100       |
/// | normal subdivision                                   | 42 Closed Hi-Hat             | 100       |
/// | count-in: accented (beat one) / normal or soft       | 37 Side Stick                | 127 / 106 |
/// | polyrhythm layer: accent / others                    | 67 High Agogo / 68 Low Agogo | 127 / 100 |
/// | soft beat, subdivision or layer click (not count-in) | the same key                 | 71        |
/// | silent                                               | no note                      |           |
///
/// Velocities follow the mixer's gains under the MIDI curve gain = (v/127)²: soft plays at half the normal
/// amplitude (100/√2 ≈ 71); count-in clicks other than accented ones — soft ones included, as the mixer plays every
/// one of them at `ClickSet.countInOffBeatGain` — at 0.7 of the accent's (127·√0.7 ≈ 106). A section's volume v
/// scales every velocity by √v (at least 1); a section of volume 0 exports no clicks, as it sounds none.
public struct MIDIClickNotes: Sendable, Hashable {
    /// A key and a velocity.
    public struct Note: Sendable, Hashable {
        /// The General MIDI percussion key, 0...127.
        public var key: UInt8
        /// The velocity at full section volume, 1...127.
        public var velocity: UInt8

        /// Creates a note.
        /// - Parameters:
        ///   - key: the General MIDI percussion key, 0...127.
        ///   - velocity: the velocity at full section volume, 1...127.
        public init(key: UInt8, velocity: UInt8) {
            self.key = key
            self.velocity = velocity
        }
    }

    /// Accented beats.
    public var accent: Note
    /// Normal beats, and accented subdivisions (the mixer plays them with the normal sound).
    public var normal: Note
    /// Normal subdivisions between beats.
    public var subdivision: Note
    /// Accented count-in clicks (beat one); the other count-in clicks use the same key at `countInOffBeatVelocity`.
    public var countIn: Note
    /// Velocity of count-in clicks that are not accented, soft ones included.
    public var countInOffBeatVelocity: UInt8
    /// Accented polyrhythm-layer clicks.
    public var layerAccent: Note
    /// Other polyrhythm-layer clicks.
    public var layerNormal: Note
    /// Velocity of soft clicks outside the count-in (beats, subdivisions and layer clicks).
    public var softVelocity: UInt8

    /// Creates a mapping.
    /// - Parameters:
    ///   - accent: accented beats.
    ///   - normal: normal beats and accented subdivisions.
    ///   - subdivision: normal subdivisions.
    ///   - countIn: accented count-in clicks; the others take its key.
    ///   - countInOffBeatVelocity: the velocity of count-in clicks that are not accented.
    ///   - layerAccent: accented polyrhythm-layer clicks.
    ///   - layerNormal: other polyrhythm-layer clicks.
    ///   - softVelocity: the velocity of soft clicks outside the count-in.
    public init(
        accent: Note, normal: Note, subdivision: Note, countIn: Note, countInOffBeatVelocity: UInt8,
        layerAccent: Note, layerNormal: Note, softVelocity: UInt8
    ) {
        self.accent = accent
        self.normal = normal
        self.subdivision = subdivision
        self.countIn = countIn
        self.countInOffBeatVelocity = countInOffBeatVelocity
        self.layerAccent = layerAccent
        self.layerNormal = layerNormal
        self.softVelocity = softVelocity
    }

    /// The General MIDI mapping of the table above.
    public static let generalMIDI = MIDIClickNotes(
        accent: Note(key: 76, velocity: 127), normal: Note(key: 77, velocity: 100),
        subdivision: Note(key: 42, velocity: 100), countIn: Note(key: 37, velocity: 127), countInOffBeatVelocity: 106,
        layerAccent: Note(key: 67, velocity: 127), layerNormal: Note(key: 68, velocity: 100), softVelocity: 71)

    /// The note a click plays, or nil for a silent click or one in a section of volume 0.
    /// - Parameter event: a click of the timeline.
    /// - Returns: its key and velocity, scaled by the section's volume.
    /// - Complexity: O(1).
    public func note(for event: ClickEvent) -> Note? {
        guard event.level != .silent, event.volume > 0 else { return nil }
        var note: Note
        if event.isCountIn {
            note = countIn
            if event.level != .accent { note.velocity = countInOffBeatVelocity }
        } else if event.layer > 0 {
            note = event.level == .accent ? layerAccent : layerNormal
        } else if event.isBeat {
            note = event.level == .accent ? accent : normal
        } else {
            note = event.level == .accent ? normal : subdivision
        }
        if event.level == .soft, !event.isCountIn { note.velocity = softVelocity }
        if event.volume < 1 {
            let scaled = (Double(note.velocity) * Double(event.volume).squareRoot()).rounded()
            note.velocity = UInt8(max(1, min(127, scaled)))
        }
        return note
    }
}
