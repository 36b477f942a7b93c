/// The text meta events a Standard MIDI File reader keeps (meta types 0x01...0x09); the other meta types it does
/// not know are skipped.
public enum MIDITextKind: UInt8, Sendable, Hashable, CaseIterable {
    /// 0x01: any text.
    case text = 0x01
    /// 0x02: a copyright notice.
    case copyright = 0x02
    /// 0x03: the name of the sequence (in the first track of format 0 and 1) or of the track.
    case trackName = 0x03
    /// 0x04: the instrument a track is meant for.
    case instrumentName = 0x04
    /// 0x05: a lyric syllable.
    case lyric = 0x05
    /// 0x06: a rehearsal letter or section name (a label for `--start-at`).
    case marker = 0x06
    /// 0x07: a cue point.
    case cuePoint = 0x07
    /// 0x08: a program (patch) name.
    case programName = 0x08
    /// 0x09: a device (port) name.
    case deviceName = 0x09
}
