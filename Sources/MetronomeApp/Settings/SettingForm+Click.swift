import MetronomeFiles
import MetronomeMIDI
import MetronomeModel
import MetronomePatterns

/// Where a render goes: an audio file with its container and sample type, or a Standard MIDI File (`.mid`, `.midi`,
/// `.smf`, `.kar`).
public struct OutputPlan: Sendable {
    /// The container and sample type of an audio file.
    public struct Audio: Sendable {
        public var container: AudioContainer
        public var sampleType: AudioSampleType
    }

    /// The file's path.
    public var path: String
    /// The audio format, or nil for a MIDI file.
    public var audio: Audio?
    /// A MIDI file's tempo course (`--midi-tempo`): steady by default.
    public var midiTempo: MIDIExport.TempoCourse = .steady
}

/// What plays the click, before its map is read: a click from the settings, a pattern file, or a MIDI file.
public enum ClickFormSource {
    /// The click from `--bpm`, `--meter`… and the section settings (`--swing`, `--gap`, `--trainer`); `silent`
    /// keeps its grid for notes but sounds no click.
    case click(silent: Bool)
    /// A pattern file or shipped pattern, started at a label or bar (`--start-at`).
    case pattern(PatternDocument, startAt: String?)
    /// A MIDI file's map and meters.
    case midi(MIDIPlayback)
}

/// A click request checked from a form, with where it goes and the tempo override it asked for (which names the
/// setting in the plan's errors).
public struct CheckedClick: Sendable {
    public var request: ClickRequest
    /// Where the render goes, or nil to play live.
    public var output: OutputPlan?
    public var tempo: TempoOverride
}

extension SettingForm {
    /// The section settings of the click (`--swing`, `--gap`, `--trainer`), with what each sets.
    public static let sectionSettings = [
        ("--swing", "the swing"), ("--gap", "the gap practice"), ("--trainer", "the tempo trainers"),
    ]

    /// Checks the click's settings (`--bpm`, `--meter`, `--accent`, `--subdivide`, `--count-in`, `--bars`, `--sound`,
    /// `--sound-file`), the section's, and the output's (`--duration`, `--volume`, `--gain-db`, `--sample-rate`,
    /// `--output`, `--format`, `--channels`, `--voices`; `--tempo-scale` for a file), in the order the command line
    /// has always reported them.
    /// - Parameter source: what plays; a file refuses the settings it sets itself.
    public func clickRequest(_ source: ClickFormSource) throws(SettingError) -> CheckedClick {
        var command: String?
        switch source {
        case .click: command = nil
        case .pattern: command = "'play'"
        case .midi: command = "'play' of a MIDI file"
        }
        let isFile = command != nil
        if let command {
            try refuse(
                ["--meter", "--accent"],
                "does not apply to \(command): the file sets the meter and accents of every section")
            if let (name, what) = Self.sectionSettings.first(where: { has($0.0) }) {
                throw SettingError(name, "does not apply to \(command): the file sets \(what) of its sections")
            }
        }
        let tempo = try value("--bpm", default: SettingDefault.bpm) { text throws(InvalidValue) in
            try SettingText.tempo(text)
        }
        let meterText = self["--meter"] ?? SettingDefault.meter
        let grouping = meterText.firstIndex(of: "=")
        let meter = try Self.parse("--meter", meterText) { text throws(InvalidValue) in
            try Meter(parsing: String(text[..<(grouping ?? text.endIndex)]))
        }
        let groups = try grouping.map { equals throws(SettingError) in
            try Self.parse("--meter", meterText) { text throws(InvalidValue) in
                try SectionSettings.grouping(parsing: String(text[text.index(after: equals)...]), for: meter)
            }
        }
        let accents = try value("--accent") { text throws(InvalidValue) in try AccentPattern(parsing: text, for: meter)
        }
        let subdivision = try value("--subdivide", default: SettingDefault.subdivide, SettingText.subdivision)
        let rate = try sampleRate()
        try exclusive("--bars", "--duration")
        let bars = try value("--bars", SettingText.bars)
        let seconds = try value("--duration", SettingText.duration)
        try exclusive("--volume", "--gain-db")
        var gain: Float = 1
        if let volume = try value("--volume", SettingText.volumeGain) {
            gain = volume
        } else if let decibels = try value("--gain-db", SettingText.decibelGain) {
            gain = decibels
        }
        let channels = try value("--channels", default: SettingDefault.channels, SettingText.channels)
        let voices = try value("--voices", default: SettingDefault.voices, SettingText.voices)
        let practice = try practiceSeconds()
        let randomMute = try randomMute()
        let output = try outputPlan()
        if output != nil, bars == nil, seconds == nil, practice == nil, !isFile {
            throw SettingError(
                "--output needs --bars N or --duration SECONDS: an endless click cannot be written to a file")
        }
        try exclusive("--sound", "--sound-file")
        let style = try self["--sound"].map { name throws(SettingError) -> ClickStyle in
            guard let style = ClickStyle(rawValue: name) else {
                let names = ClickStyle.allCases.map(\.rawValue).joined(separator: ", ")
                throw SettingError("--sound", "\(name): unknown sound; choose one of \(names) (see 'metronome sounds')")
            }
            return style
        }
        let samplePaths = try self["--sound-file"].map { text throws(SettingError) -> [String] in
            let paths = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard (1...3).contains(paths.count), !paths.contains(where: \.isEmpty) else {
                throw SettingError(
                    "--sound-file", "\(text): give one to three files separated by commas: ACCENT[,NORMAL[,SUB]]")
            }
            return paths
        }
        let countIn = try value("--count-in", SettingText.countIn)
        var override = TempoOverride.none
        let requestSource: ClickRequest.Source
        switch source {
        case .midi(let midi):
            override = try tempoOverride(tempo)
            requestSource = .midi(midi, tempo: override)
        case .pattern(let document, let startAt):
            override = try tempoOverride(tempo)
            requestSource = .pattern(document, startAt: startAt, tempo: override)
        case .click(let silent):
            let swing = try swing()
            if let swing, !silent, let needed = Self.subdivisionSwinging(swing, meter: meter, subdivision: subdivision)
            {
                // A swing that moves no click would change nothing: refused, not ignored.
                let clicks = subdivision == 1 ? "one click a beat" : "\(subdivision) clicks a beat"
                let notes = swing.note == 8 ? "eighths" : "sixteenths"
                throw SettingError(
                    "--swing",
                    "\(self["--swing"]!): no click of \(meter) at \(clicks) falls between the swung \(notes); add "
                        + "--subdivide \(needed)")
            }
            let settings = SectionSettings(
                tempo: tempo, bars: bars, meter: meter, groups: groups, accents: accents, subdivision: subdivision,
                swing: swing, gap: try value("--gap", SettingText.gap),
                trainer: try value("--trainer") { text throws(InvalidValue) in
                    try SettingText.trainer(text, tempo: tempo, bars: bars)
                })
            requestSource = .click(settings, silentClick: silent)
        }
        var request = ClickRequest(requestSource)
        if isFile, has("--subdivide") { request.subdivision = subdivision }
        request.countInBars = countIn
        request.bars = bars
        request.seconds = seconds
        request.sound = style
        request.soundFiles = samplePaths
        request.sampleRate = rate
        request.channels = channels
        request.voices = voices
        request.gain = gain
        request.rendersToFile = output != nil
        request.randomMute = randomMute
        request.practiceSeconds = practice
        return CheckedClick(request: request, output: output, tempo: override)
    }

    /// `--sample-rate`, 48000 when not given.
    public func sampleRate() throws(SettingError) -> SampleRate {
        try value("--sample-rate", default: SettingDefault.sampleRate) { text throws(InvalidValue) in
            try SampleRate(parsing: text)
        }
    }

    /// Nil when `swing` moves some click of a bar of `meter` at `subdivision` clicks a beat; else the fewest clicks a
    /// beat with which it would (nil too when none up to 16 would).
    static func subdivisionSwinging(_ swing: Swing, meter: Meter, subdivision: Int) -> Int? {
        func moves(_ clicks: Int) -> Bool {
            (0..<(meter.beats * clicks)).contains { index in
                let position = Double(index) / Double(clicks)
                return swing.warp(position, unit: meter.unit, barBeats: meter.beats) != position
            }
        }
        guard !moves(subdivision) else { return nil }
        // The swung note's own grid first (eighths: 2 a quarter beat, sixteenths: 4), then any.
        let natural = max(1, swing.note / meter.unit)
        let order = Array(stride(from: natural, through: TempoSection.maximumSubdivision, by: natural))
        return (order + Array(1...TempoSection.maximumSubdivision)).first(where: moves)
    }

    /// `--swing [8=|16=]PERCENT[%]`: the note value given, else `defaultNote`.
    public func swing(defaultNote: Int = 8) throws(SettingError) -> Swing? {
        try value("--swing") { text throws(InvalidValue) in try SettingText.swing(text, defaultNote: defaultNote) }
    }

    /// A file's tempo override: `--bpm` (`tempo`, when given) or `--tempo-scale`, not both.
    private func tempoOverride(_ tempo: BPM) throws(SettingError) -> TempoOverride {
        try exclusive("--bpm", "--tempo-scale")
        if has("--bpm") { return .bpm(tempo) }
        return try value("--tempo-scale", SettingText.tempoScale).map { .scale($0) } ?? .none
    }

    /// The file `--output` names, with its container and sample type (`--format`), or nil to play live.
    public func outputPlan() throws(SettingError) -> OutputPlan? {
        guard let output = self["--output"] else {
            if let format = self["--format"] {
                throw SettingError("--format", "\(format): --format applies only with --output FILE")
            }
            if let course = self["--midi-tempo"] {
                throw SettingError("--midi-tempo", "\(course): --midi-tempo applies only with --output FILE.mid")
            }
            if has("--force") { throw SettingError("--force", "applies only with --output FILE") }
            return nil
        }
        if MIDIPlayback.namesMIDIFile(output) {
            // A MIDI file holds notes, not sound: the settings that shape audio would change nothing in it, so they
            // are refused rather than ignored.
            let audio = [
                "--format", "--sample-rate", "--channels", "--voices", "--volume", "--gain-db", "--force", "--practice",
            ]
            if let name = audio.first(where: has) {
                let text = self[name] ?? ""
                let problem = "\(output) is a MIDI file, which holds no audio; leave \(name) out"
                throw text.isEmpty ? SettingError("\(name): \(problem)") : SettingError(name, "\(text): \(problem)")
            }
            let course = try value("--midi-tempo") { text throws(InvalidValue) in
                guard let course = MIDIExport.TempoCourse(rawValue: text) else {
                    throw InvalidValue(value: text, reason: "the MIDI tempo is steady or exact")
                }
                return course
            }
            return OutputPlan(path: output, audio: nil, midiTempo: course ?? .steady)
        }
        if let course = self["--midi-tempo"] {
            throw SettingError(
                "--midi-tempo", "\(course): --midi-tempo applies only to a MIDI file; \(output) is audio")
        }
        guard !output.isEmpty, let container = AudioContainer(path: output) else {
            throw SettingError(
                "--output", "\(output): unknown file type; the name must end in .wav, .flac, .ogg, .aiff or .mid")
        }
        let type = try value("--format") { text throws(InvalidValue) in
            do throws(InvalidValue) {
                return try SettingText.sampleType(text, for: container)
            } catch {
                // The only thing to do about an Ogg file's type is to give none.
                guard container == .ogg else { throw error }
                throw InvalidValue(value: text, reason: error.reason + "; leave --format out")
            }
        }
        if has("--force"), container != .wav, container != .aiff {
            throw SettingError(
                "--force: \(output) is \(container == .flac ? "FLAC" : "Ogg"), whose size the sound decides and is "
                    + "not estimated; leave --force out")
        }
        return OutputPlan(
            path: output, audio: .init(container: container, sampleType: type ?? container.defaultSampleType))
    }
}
