import MetronomeEngine
import MetronomeFiles
import MetronomeModel
import MetronomePatterns

extension ClickPlan {
    /// Builds the plan a request asks for: the map from its source (a pattern's tempo override, start, subdivision
    /// and count-in applied; a MIDI file's start bar as a locate after the count-in), the click sounds, the length.
    ///
    /// The length: `seconds` if given; else `bars` from where playing starts (at most the file's bars); else the
    /// map's end (a MIDI file's end plus `MIDIPlayback.tailSeconds` for the last releases); else endless.
    /// - Parameter request: what to play.
    /// - Throws: `PlanError`: the file cannot be read or mapped, a sample cannot be loaded, a render of an endless
    ///   pattern has no length.
    public init(_ request: ClickRequest) throws(PlanError) {
        let rate = request.sampleRate
        let map: TempoMap
        var fileSound: ClickStyle?
        var fileInstrument: BuiltInInstrument?
        var fileSoundFont: SoundFontReference?
        var midi: MIDIPlayback?
        switch request.source {
        case .pattern(let document, let startAt, let tempo):
            let score: PatternScore
            do { score = try document.score(tempo: tempo) } catch { throw .pattern(error) }
            fileSound = score.sound
            fileInstrument = score.instrument
            fileSoundFont = score.soundFont.map { reference in
                var resolved = reference
                if !reference.path.hasPrefix("/"), let slash = document.path.lastIndex(of: "/") {
                    resolved.path = String(document.path[...slash]) + reference.path
                }
                return resolved
            }
            do {
                map = try score.map(
                    sampleRate: rate, startAt: startAt, subdivision: request.subdivision,
                    countInBars: request.countInBars)
            } catch {
                guard let startAt, error.value == startAt else { throw .patternMap(path: document.path, error) }
                throw .startAt(error)
            }
            if request.rendersToFile, request.bars == nil, request.seconds == nil, request.practiceSeconds == nil,
                !map.isFinite
            {
                throw .endless(path: document.path)
            }
        case .midi(let playback, let tempo):
            midi = playback
            do {
                map = try playback.map(
                    sampleRate: rate, tempo: tempo, subdivision: request.subdivision,
                    countInBars: request.countInBars ?? 0)
            } catch {
                throw .midiMap(error)
            }
        case .click(let settings, let silentClick):
            var settings = settings
            if silentClick {
                settings.accents = AccentPattern(levels: Array(repeating: .silent, count: settings.meter.beats))
                settings.subdivision = 1
            }
            do {
                map = try settings.score().map(sampleRate: rate, countInBars: request.countInBars ?? 0)
            } catch {
                throw .section(error)
            }
        }
        let clicks: ClickSet
        if let paths = request.soundFiles {
            do { clicks = try ClickSamples.load(paths, sampleRate: rate) } catch { throw .clickSample(error) }
        } else {
            clicks = ClickSynthesizer.clickSet(request.sound ?? fileSound ?? .standard, sampleRate: rate)
        }
        let isFile: Bool
        if case .click = request.source { isFile = false } else { isFile = true }
        var frames = request.seconds.map { rate.frame(at: $0) } ?? map.endFrame
        if isFile, request.seconds == nil, let bars = request.bars {
            frames = map.frame(ofBar: map.firstBar + min(bars, map.barCount ?? bars))
        }
        let startCommand = try midi?.start(on: map)
        if let midi {
            frames = midi.frameCount(
                on: map, bars: request.bars, seconds: request.seconds, start: startCommand?.command)
        }
        self.init(
            map: map, clicks: clicks, gain: request.gain, channels: request.channels, voices: request.voices,
            frameCount: frames,
            bars: request.seconds != nil ? nil : request.bars.map { min($0, map.barCount ?? $0) } ?? map.barCount)
        start = startCommand
        sound = request.sound ?? fileSound ?? .standard
        instrument = fileInstrument
        soundFont = fileSoundFont
        randomMute = request.randomMute
        if let seconds = request.practiceSeconds {
            let timer = PracticeTimer(
                duration: rate.frame(at: seconds), sound: ClickSynthesizer.practiceEndSound(sampleRate: rate))
            practice = timer
            // A render ends as a run from the top does: the chime's downbeat, then the chime, then the render's fade
            // (`renderFadeOut`) over what still sounds besides it (a map that ends first ends it there).
            if request.rendersToFile, let end = PracticeTimer.endFrame(on: map, duration: timer.duration) {
                let chime = SampleTime(timer.sound.frameCount) + rate.frames(in: ClickPlan.renderFadeOut)
                frameCount = min(frameCount ?? .max, end + chime)
                self.bars = nil
            }
        }
    }
}

/// Click sounds from the user's sample files.
public enum ClickSamples {
    /// Gain of the normal sound relative to the accent when one file is given: 0.7×, about −3 dB.
    public static let singleFileNormalGain: Float = 0.7
    /// Gain of the subdivision sound relative to the accent's when fewer than three files are given: 0.5×, −6 dB.
    public static let subdivisionGain: Float = 0.5

    /// Loads one to three samples (any format libsndfile reads, mono or stereo) as accent, normal and subdivision,
    /// converted to `sampleRate`. One file serves every level (normal at 0.7×, subdivisions at 0.5×); with two, the
    /// second is normal and subdivisions play it at 0.5×. The count-in keeps the built-in sound.
    /// - Parameters:
    ///   - paths: one to three files.
    ///   - sampleRate: the output rate.
    /// - Returns: the click set, named "files".
    /// - Throws: `AudioFileError` for the first file that cannot be read.
    public static func load(_ paths: [String], sampleRate: SampleRate) throws(AudioFileError) -> ClickSet {
        var buffers: [SampleBuffer] = []
        for path in paths { buffers.append(try AudioFileReader.loadSample(path: path, sampleRate: sampleRate)) }
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
