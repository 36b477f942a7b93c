import MetronomeFiles
import MetronomeKit

/// Where a render goes: an audio file, or a Standard MIDI File (`.mid`, `.midi`, `.smf`, `.kar`).
struct OutputPlan {
    /// The container and sample type of an audio file.
    struct Audio {
        var container: AudioContainer
        var sampleType: AudioSampleType
    }

    var path: String
    /// The audio format, or nil for a MIDI file.
    var audio: Audio?
}

/// Everything a click track needs, checked: the result of parsing the options.
struct ClickPlan {
    var map: TempoMap
    var clicks: ClickSet
    var gain: Float
    var sampleRate: SampleRate
    var channels: Int
    var voices: Int
    /// Frames to render, or nil when the click is endless.
    var frameCount: SampleTime?
    /// Bars of music rendered (count-in excluded), when the length is a whole number of bars.
    var bars: Int?
    var output: OutputPlan?
    var quiet: Bool
    /// The note-track instrument a pattern file asks for.
    var instrument: InstrumentSynthesizer.Instrument?
    /// The SoundFont preset a pattern file asks its note track to play, its path resolved against the file's folder.
    var soundFont: SoundFontReference?
    /// Notes to play with the clicks (`arp`, `chord`), made when playing starts.
    var notes: (@Sendable () -> NotePlayer)?
    /// A transport command sent as playing starts (`play FILE.mid --start-at`: a locate after the count-in).
    var start: (command: TransportCommand, at: Quantization)?
    /// The same notes as note tracks of a MIDI export (`-o FILE.mid`).
    var parts: [MIDIExportPart] = []
    /// Whether the transport waits for a play command (`serve --wait`) instead of playing at once.
    var waits = false
    /// SoundFont voices that may sound at once.
    var polyphony = 256

    /// The mixer settings the plan asks for.
    func mixerConfiguration() throws(CommandLineError) -> MixerConfiguration {
        do {
            return try MixerConfiguration(
                sampleRate: sampleRate, channels: channels, voiceCapacity: voices, fontPolyphony: polyphony)
        } catch {
            throw CommandLineError(.usage, error.description)
        }
    }

    /// The playback chain for the plan, live or offline.
    func session(configuration: MixerConfiguration, lookahead: SampleTime?) throws(CommandLineError) -> Session {
        do {
            let session = try Session(
                map: map, clicks: clicks, configuration: configuration, endFrame: frameCount, gain: gain,
                players: notes.map { [$0()] } ?? [], lookahead: lookahead, playing: !waits)
            if let start { session.send(start.command, at: start.at) }
            return session
        } catch {
            throw CommandLineError(.usage, error.description)
        }
    }

    /// Gain of the normal and subdivision sounds relative to the accent when fewer than three files are given.
    static let singleFileNormalGain: Float = 0.7
    static let subdivisionGain: Float = 0.5

    /// Loads `--sound-file` samples. One file serves every level (normal at 0.7×, about −3 dB; subdivisions at
    /// 0.5×, −6 dB); with two, the second is normal and subdivisions play it at 0.5×.
    static func loadClicks(_ paths: [String], sampleRate: SampleRate) throws(CommandLineError) -> ClickSet {
        var buffers: [SampleBuffer] = []
        for path in paths {
            do {
                buffers.append(try AudioFileReader.loadSample(path: path, sampleRate: sampleRate))
            } catch {
                let status: ExitStatus
                switch error {
                case .notFound, .unreadable: status = .noInput
                default: status = .dataError
                }
                throw CommandLineError(status, "--sound-file \(error.description)")
            }
        }
        let accent = buffers[0]
        let normal = buffers.count > 1 ? buffers[1] : scaled(accent, by: singleFileNormalGain)
        let subdivision =
            buffers.count > 2
            ? buffers[2] : scaled(normal, by: subdivisionGain / (buffers.count > 1 ? 1 : singleFileNormalGain))
        return ClickSet(
            name: "files", summary: paths.joined(separator: ","), accent: accent, normal: normal,
            subdivision: subdivision, countIn: ClickSynthesizer.countInSound(sampleRate: sampleRate))
    }

    private static func scaled(_ buffer: SampleBuffer, by gain: Float) -> SampleBuffer {
        let channels = (0..<buffer.channelCount).map { buffer.channel($0).map { $0 * gain } }
        return SampleBuffer(channels: channels, name: buffer.name)
    }
}
