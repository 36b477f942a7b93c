import Glibc
import MetronomeEngine
import MetronomePatterns

/// Loads a sound bank from disk: our own bank file (`.bank`) or SoundBankPlayer's plist (`.plist`), with the
/// samples beside it read through libsndfile at their own rate (the zone's rate accounts for it; nothing is
/// resampled).
public enum SoundBankLoader {
    /// Why a bank could not be loaded.
    public enum Failure: Error, Sendable {
        /// The bank or one of its samples is malformed, not text, or past a limit (exit 65): the bank's path, then
        /// what is wrong.
        case malformed(String)
        /// The bank file is malformed at a place: `FILE:LINE:COLUMN: error: …`, the line and a caret (exit 65).
        case positioned(String)
        /// The bank file or a sample is missing or cannot be opened (exit 66).
        case missing(String)
    }

    /// Extensions tried, in order, for a SoundBankPlayer sample named without one.
    public static let sampleExtensions = ["caf", "wav", "aiff", "aif", "flac", "ogg"]

    /// Loads a bank and its samples.
    /// - Parameter path: the `.bank` or `.plist` file.
    /// - Returns: the bank, its samples at their own rates.
    /// - Throws: `Failure.missing` when the bank or a sample is missing or cannot be opened; `.malformed` or
    ///   `.positioned` when either holds the wrong content (not text, too large, a bad line, a sample that cannot
    ///   be decoded or passes `AudioFileReader`'s limits).
    public static func load(path: String) throws(Failure) -> SoundBank {
        let text: String
        do { text = try TextFile.read(path: path) } catch {
            throw error.isMissing ? .missing(error.description) : .malformed(error.description)
        }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) + "/" : ""
        let base = String(path.split(separator: "/").last ?? "bank")
        let stem = base.contains(".") ? String(base[..<base.lastIndex(of: ".")!]) : base
        var name = stem
        var summary = "sound bank \(base)"
        var descriptions: [ZoneDescription]
        var plistRate: Int?
        if path.hasSuffix(".plist") {
            do {
                let parsed = try SoundBankPlayerPlist.parse(text)
                descriptions = parsed.zones
                plistRate = parsed.sampleRate
                summary = "SoundBankPlayer bank \(base)"
            } catch {
                throw .malformed("\(path): \(error.description)")
            }
        } else {
            do {
                let parsed = try BankFile.parse(text, file: path)
                descriptions = parsed.zones
                name = parsed.name ?? name
                summary = parsed.summary ?? summary
            } catch {
                throw .positioned(error.description)
            }
        }
        var zones: [BankZone] = []
        for description in descriptions {
            var candidates = [folder + description.file]
            if plistRate != nil, !description.file.contains(".") {
                candidates = sampleExtensions.map { folder + description.file + "." + $0 }
            }
            guard let file = candidates.first(where: { access($0, R_OK) == 0 }) else {
                throw .missing("\(path): sample '\(description.file)' not found beside the bank")
            }
            let audio: DecodedAudio
            do { audio = try AudioFileReader.readSample(path: file) } catch {
                // As for --sound-file: a missing or unopenable sample is 66, one that cannot be decoded is 65.
                let message = "\(path): sample \(error.description)"
                throw error.isMissing ? .missing(message) : .malformed(message)
            }
            guard audio.frameCount > 0 else { throw .malformed("\(path): sample '\(file)' is empty") }
            do {
                zones.append(
                    try BankZone(
                        sample: SampleBuffer(channels: Array(audio.channels.prefix(2)), name: file),
                        sampleRate: audio.sampleRate, lowNote: description.lowNote, highNote: description.highNote,
                        rootNote: description.rootNote, fineTune: description.fineTune, gain: description.gain,
                        loop: description.loop, release: description.release))
            } catch {
                throw .malformed("\(path): sample on line \(description.line): \(error.description)")
            }
        }
        return SoundBank(name: name, summary: summary, zones: zones)
    }
}
