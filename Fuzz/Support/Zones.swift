import MetronomeKit

/// Builds a bank from parsed zone descriptions as `SoundBankLoader` does once it has read their samples, with one
/// 4800-frame sample at 48 kHz standing in for every file: each zone's notes, tuning, gain, loop and release are
/// checked by `BankZone`, whose refusal must be an `InvalidValue` with a printable message; the first refusal refuses
/// the bank, as in the loader.
/// - Parameter zones: what `BankFile` or `SoundBankPlayerPlist` parsed.
public func exercise(_ zones: [ZoneDescription]) {
    var built: [BankZone] = []
    for zone in zones {
        do throws(InvalidValue) {
            built.append(
                try BankZone(
                    sample: standIn, sampleRate: 48_000, lowNote: zone.lowNote, highNote: zone.highNote,
                    rootNote: zone.rootNote, fineTune: zone.fineTune, gain: zone.gain, loop: zone.loop,
                    release: zone.release))
        } catch {
            _ = error.description
            return
        }
    }
    _ = SoundBank(name: "fuzz", summary: "fuzz", zones: built)
}

/// The sample every zone gets: 0.1 s of a quiet saw.
private let standIn = SampleBuffer(channels: [(0..<4800).map { Float($0 % 100) / 400 }], name: "stand-in")
