import ArgumentParser
import MetronomeKit

/// The options of a click track. Values are taken as text and checked here, so every bad value gets a message
/// naming the option, the value and what is allowed (exit 64).
struct ClickOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Tempo in quarter notes per minute, 1 to 1000 (default 120).")
    var bpm: String?

    @Option(
        help: """
            Time signature n/d: n from 1 to 64, d one of 1, 2, 4, 8, 16, 32 (default 4/4); n/d=a+b+… groups the \
            beats, accenting each group's first (7/8=2+2+3).
            """)
    var meter: String?

    @Option(help: "One letter per beat: X accent, x normal, o soft, . silent (default: accent on beat one).")
    var accent: String?

    @Option(
        parsing: .unconditional,
        help: "Clicks per beat, 1 to 16 (2 adds off-beats, 3 triplets, 4 sixteenths; default 1).")
    var subdivide: String?

    @Option(
        name: .customLong("count-in"), parsing: .unconditional,
        help: "Bars of count-in (a distinct sound) before bar 1, 0 to 16.")
    var countIn: String?

    @Option(parsing: .unconditional, help: "Stop after this many bars.")
    var bars: String?

    @Option(help: "Built-in click sound (see 'metronome sounds').")
    var sound: String?

    @Option(
        name: .customLong("sound-file"),
        help: "Your own samples ACCENT[,NORMAL[,SUBDIVISION]] in any format libsndfile reads (mono or stereo).")
    var soundFile: String?

    /// Checks every value and builds what to play: one section from the options (with `section`'s swing, gap and
    /// trainer, built as a one-section `.metro` file would be), or the pattern file in `pattern`, sounding as
    /// `output` says. Usage errors (64) come before file errors (65, 66).
    func plan(
        _ output: OutputOptions, pattern: PatternRequest? = nil, midi: MIDIRequest? = nil,
        section: SectionOptions? = nil, silentClick: Bool = false
    ) throws(CommandLineError) -> ClickPlan {
        if pattern != nil || midi != nil {
            let command = midi != nil ? "'play' of a MIDI file" : "'play'"
            for (name, given) in [("--meter", meter), ("--accent", accent)] where given != nil {
                throw CommandLineError(
                    .usage, "\(name) does not apply to \(command): the file sets the meter and accents of every section"
                )
            }
            if let (name, what) = section?.given.first {
                throw CommandLineError(
                    .usage, "\(name) does not apply to \(command): the file sets \(what) of its sections")
            }
        }
        let tempo = try checked("--bpm", bpm ?? "120") { text throws(InvalidValue) in try BPM(parsing: text) }
        let meterText = self.meter ?? "4/4"
        let grouping = meterText.firstIndex(of: "=")
        let meter = try checked("--meter", meterText) { text throws(InvalidValue) in
            try Meter(parsing: String(text[..<(grouping ?? text.endIndex)]))
        }
        let groups = try grouping.map { equals throws(CommandLineError) in
            try checked("--meter", meterText) { text throws(InvalidValue) in
                try SectionSettings.grouping(parsing: String(text[text.index(after: equals)...]), for: meter)
            }
        }
        let accents = try accent.map { text throws(CommandLineError) in
            try checked("--accent", text) { text throws(InvalidValue) in try AccentPattern(parsing: text, for: meter) }
        }
        let subdivide = self.subdivide ?? "1"
        guard let subdivision = Int(subdivide), (1...TempoSection.maximumSubdivision).contains(subdivision) else {
            throw .usage(option: "--subdivide", "\(subdivide): subdivision must be a whole number from 1 to 16")
        }
        let rate = try output.checkedSampleRate()
        if bars != nil, output.duration != nil {
            throw CommandLineError(.usage, "--bars and --duration cannot be used together; choose one")
        }
        let barCount = try bars.map { text throws(CommandLineError) -> Int in
            guard let value = Int(text), value >= 1, value <= 1_000_000 else {
                throw .usage(option: "--bars", "\(text): the number of bars must be a whole number from 1 to 1000000")
            }
            return value
        }
        let seconds = try output.duration.map { text throws(CommandLineError) -> Double in
            guard let value = Double(text), value.isFinite, value > 0, value <= 86_400 else {
                throw .usage(
                    option: "--duration", "\(text): duration must be a number of seconds greater than 0, at most 86400")
            }
            return value
        }
        let gain = try output.masterGain()
        let (channelCount, voiceCount) = try output.checkedMix()
        let outputPlan = try output.outputPlan()
        if outputPlan != nil, barCount == nil, seconds == nil, pattern == nil, midi == nil {
            throw CommandLineError(
                .usage, "--output needs --bars N or --duration SECONDS: an endless click cannot be written to a file")
        }
        if sound != nil, soundFile != nil {
            throw CommandLineError(.usage, "--sound and --sound-file cannot be used together; choose one")
        }
        let style = try sound.map { name throws(CommandLineError) -> ClickStyle in
            guard let style = ClickStyle(rawValue: name) else {
                let names = ClickStyle.allCases.map(\.rawValue).joined(separator: ", ")
                throw .usage(
                    option: "--sound", "\(name): unknown sound; choose one of \(names) (see 'metronome sounds')")
            }
            return style
        }
        let samplePaths = try soundFile.map { text throws(CommandLineError) -> [String] in
            let paths = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard (1...3).contains(paths.count), !paths.contains(where: \.isEmpty) else {
                throw .usage(
                    option: "--sound-file",
                    "\(text): give one to three files separated by commas: ACCENT[,NORMAL[,SUB]]")
            }
            return paths
        }

        let countInBars = try countIn.map { text throws(CommandLineError) -> Int in
            guard let value = Int(text), (0...TempoMap.maximumCountInBars).contains(value) else {
                throw .usage(option: "--count-in", "\(text): the count-in must be a whole number of bars from 0 to 16")
            }
            return value
        }
        let map: TempoMap
        var fileSound: ClickStyle?
        var fileInstrument: InstrumentSynthesizer.Instrument?
        var fileSoundFont: SoundFontReference?
        if let pattern {
            let override = try pattern.tempoOverride(bpm: bpm.map { _ in tempo })
            let score = try pattern.file.score(tempo: override)
            fileSound = score.sound
            fileInstrument = score.instrument
            fileSoundFont = score.soundFont.map { reference in
                var resolved = reference
                if !reference.path.hasPrefix("/"), let slash = pattern.file.path.lastIndex(of: "/") {
                    resolved.path = String(pattern.file.path[...slash]) + reference.path
                }
                return resolved
            }
            do {
                map = try score.map(
                    sampleRate: rate, startAt: pattern.startAt, subdivision: self.subdivide.map { _ in subdivision },
                    countInBars: countInBars)
            } catch {
                guard let start = pattern.startAt, error.value == start else {
                    throw CommandLineError(.dataError, "\(pattern.file.path): \(error.description)")
                }
                throw .usage(option: "--start-at", error.description)
            }
            if outputPlan != nil, barCount == nil, seconds == nil, !map.isFinite {
                throw CommandLineError(
                    .usage,
                    "--output needs --bars N or --duration SECONDS: \(pattern.file.path) plays without end")
            }
        } else if let midi {
            let override = try midi.pattern.tempoOverride(bpm: bpm.map { _ in tempo })
            map = try midi.map(
                sampleRate: rate, tempo: override, subdivision: self.subdivide.map { _ in subdivision },
                countInBars: countInBars ?? 0)
        } else {
            // Notes without --click keep the grid (their clock) but sound no click; a count-in still sounds.
            let silent = AccentPattern(levels: Array(repeating: .silent, count: meter.beats))
            let settings = SectionSettings(
                tempo: tempo, bars: barCount, meter: meter, groups: groups, accents: silentClick ? silent : accents,
                subdivision: silentClick ? 1 : subdivision, swing: try section?.checkedSwing(),
                gap: try section?.checkedGap(), trainer: try section?.checkedTrainer(tempo: tempo, bars: barCount))
            do {
                map = try settings.score().map(sampleRate: rate, countInBars: countInBars ?? 0)
            } catch {
                throw CommandLineError(.usage, error.description)
            }
        }
        let clicks =
            try samplePaths.map { paths throws(CommandLineError) in try ClickPlan.loadClicks(paths, sampleRate: rate) }
            ?? ClickSynthesizer.clickSet(style ?? fileSound ?? .standard, sampleRate: rate)
        var renderFrames = seconds.map { rate.frame(at: $0) } ?? map.endFrame
        if pattern != nil || midi != nil, seconds == nil, let barCount {
            renderFrames = map.frame(ofBar: map.firstBar + min(barCount, map.barCount ?? barCount))
        }
        var start: (command: TransportCommand, at: Quantization)?
        if let midi {
            start = try midi.start(on: map)
            renderFrames = try midi.renderFrames(
                on: map, bars: barCount, seconds: seconds, start: start?.command, sampleRate: rate)
        }
        return ClickPlan(
            map: map, clicks: clicks, gain: gain, sampleRate: rate, channels: channelCount, voices: voiceCount,
            frameCount: renderFrames,
            bars: seconds != nil ? nil : barCount.map { min($0, map.barCount ?? $0) } ?? map.barCount,
            output: outputPlan, quiet: output.quiet, instrument: fileInstrument, soundFont: fileSoundFont,
            start: start)
    }

    private func checked<Value>(
        _ option: String, _ text: String, _ parse: (String) throws(InvalidValue) -> Value
    ) throws(CommandLineError) -> Value {
        do { return try parse(text) } catch { throw .usage(option: option, "\(text): \(error.reason)") }
    }
}
