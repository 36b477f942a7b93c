import MetronomeFiles
import MetronomeLive
import MetronomePatterns

// The one place the library's typed errors become messages with option names and sysexits statuses.

extension CommandLineError {
    /// A plan that could not be made; `tempo` is the override the command line asked for (it names the option).
    public init(_ error: PlanError, tempo: TempoOverride = .none) {
        switch error {
        case .pattern(let error): self.init(error, tempo: tempo)
        case .startAt(let error): self = .usage(option: "--start-at", error.description)
        case .patternMap(let path, let error): self.init(.dataError, "\(path): \(error.description)")
        case .endless(let path):
            self.init(.usage, "--output needs --bars N or --duration SECONDS: \(path) plays without end")
        case .section(let error), .midiMap(let error), .mixer(let error): self.init(.usage, error.description)
        case .midiStart(let reason): self = .usage(option: "--start-at", reason)
        case .clickSample(let error):
            let status: ExitStatus
            switch error {
            case .notFound, .unreadable: status = .noInput
            default: status = .dataError
            }
            self.init(status, "--sound-file \(error.description)")
        case .session(let error): self.init(.usage, error.description)
        }
    }

    /// A pattern file that could not be read (66), is malformed (65, its own positioned lines), or whose tempos the
    /// override cannot take (64, naming the option).
    public init(_ error: PatternDocumentError, tempo: TempoOverride = .none) {
        switch error {
        case .file(let file, _): self.init(file.isMissing ? .noInput : .dataError, error.description)
        case .pattern(.malformed(let problem)): self.init(.dataError, problem.description, prefixed: false)
        case .pattern(.override(let problem)):
            let option: String
            switch tempo {
            case .none: option = problem.value
            case .bpm(let bpm): option = "--bpm \(bpm)"
            case .scale(let factor): option = "--tempo-scale \(factor)"
            }
            self.init(.usage, "\(option): \(problem.reason)")
        }
    }

    /// A MIDI file that could not be read (66) or is malformed (65, `FILE: error: …`).
    public init(_ error: MIDIPlaybackError) {
        switch error {
        case .file(let file): self.init(file.isMissing ? .noInput : .dataError, error.description)
        case .malformed: self.init(.dataError, error.description, prefixed: false)
        }
    }

    /// A SoundFont that could not be loaded: missing 66 with a message starting with `origin` (what named the file),
    /// malformed 65 (`FONT: error: at byte N: …`).
    public init(_ error: SoundFontFileError, origin: String = "--soundfont") {
        if case .malformed = error {
            self.init(.dataError, error.description, prefixed: false)
        } else {
            self.init(error.isMissing ? .noInput : .dataError, origin + " " + error.description)
        }
    }

    /// An instrument that could not be loaded: a font as above, a bank file missing (66) or malformed (65).
    public init(_ error: InstrumentError) {
        switch error {
        case .font(let font): self.init(font)
        case .bank(.malformed(let message)): self.init(.dataError, "--bank " + message)
        case .bank(.positioned(let message)): self.init(.dataError, message, prefixed: false)
        case .bank(.missing(let message)): self.init(.noInput, "--bank " + message)
        }
    }
}

extension CommandLineError {
    /// A render (`AudioFileRender`) that failed, writing `path`: no length or too large for AIFF 64, the file not
    /// created 73 or failing while written 74, the plan as `init(_:tempo:)` words it, the free space too small 73.
    public init(_ error: RenderError, path: String) {
        switch error {
        case .endless: self.init(.usage, "--output needs --bars N or --duration SECONDS")
        case .tooLargeForAIFF:
            self = .usage(
                option: "--output", "\(path): \(error.description); write .wav (RF64 past 4 GB), .flac or .ogg")
        // A full disk is the same failure whether the header or the first frames find it.
        case .file(let file): self.init(file.isWriteFailure ? .ioError : .cannotCreate, file.description)
        case .plan(let plan): self.init(plan)
        case .writing(let reason): self.init(.ioError, reason)
        case .noSpace:
            self.init(.cannotCreate, "--output \(path): \(error.description); render less, or pass --force to try")
        }
    }

    /// A setting the library's form refused: its own line, exit 64.
    public init(_ error: SettingError) { self.init(.usage, error.description) }
}
