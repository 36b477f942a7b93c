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

    /// Checks every value and builds what to play (`ClickPlan.init(_:)`): one section from the options (with
    /// `section`'s swing, gap and trainer, built as a one-section `.metro` file would be), the pattern file in
    /// `pattern`, or the MIDI file in `midi` (its tempo options in `pattern`), sounding as `output` says. Usage
    /// errors (64) come before file errors (65, 66).
    func job(
        _ output: OutputOptions, pattern: PatternRequest? = nil, midi: MIDIPlayback? = nil,
        section: SectionOptions? = nil, silentClick: Bool = false
    ) throws(CommandLineError) -> Job {
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
        let tempo = try parseOption("--bpm", bpm ?? "120") { text throws(InvalidValue) in try BPM(parsing: text) }
        let meterText = self.meter ?? "4/4"
        let grouping = meterText.firstIndex(of: "=")
        let meter = try parseOption("--meter", meterText) { text throws(InvalidValue) in
            try Meter(parsing: String(text[..<(grouping ?? text.endIndex)]))
        }
        let groups = try grouping.map { equals throws(CommandLineError) in
            try parseOption("--meter", meterText) { text throws(InvalidValue) in
                try SectionSettings.grouping(parsing: String(text[text.index(after: equals)...]), for: meter)
            }
        }
        let accents = try accent.map { text throws(CommandLineError) in
            try parseOption("--accent", text) { text throws(InvalidValue) in
                try AccentPattern(parsing: text, for: meter)
            }
        }
        let subdivision = try parseOption("--subdivide", self.subdivide ?? "1", SettingText.subdivision)
        let rate = try output.checkedSampleRate()
        if bars != nil, output.duration != nil {
            throw CommandLineError(.usage, "--bars and --duration cannot be used together; choose one")
        }
        let barCount = try parseOption("--bars", bars, SettingText.bars)
        let seconds = try parseOption("--duration", output.duration, SettingText.duration)
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
        let countInBars = try parseOption("--count-in", countIn, SettingText.countIn)
        let source: ClickRequest.Source
        var override = TempoOverride.none
        if let midi, let pattern {
            override = try pattern.tempoOverride(bpm: bpm.map { _ in tempo })
            source = .midi(midi, tempo: override)
        } else if let pattern {
            override = try pattern.tempoOverride(bpm: bpm.map { _ in tempo })
            source = .pattern(pattern.document, startAt: pattern.startAt, tempo: override)
        } else {
            let settings = SectionSettings(
                tempo: tempo, bars: barCount, meter: meter, groups: groups, accents: accents, subdivision: subdivision,
                swing: try section?.checkedSwing(), gap: try section?.checkedGap(),
                trainer: try section?.checkedTrainer(tempo: tempo, bars: barCount))
            source = .click(settings, silentClick: silentClick)
        }
        var request = ClickRequest(source)
        request.subdivision = pattern != nil ? self.subdivide.map { _ in subdivision } : nil
        request.countInBars = countInBars
        request.bars = barCount
        request.seconds = seconds
        request.sound = style
        request.soundFiles = samplePaths
        request.sampleRate = rate
        request.channels = channelCount
        request.voices = voiceCount
        request.gain = gain
        request.rendersToFile = outputPlan != nil
        do {
            return Job(plan: try ClickPlan(request), output: outputPlan, quiet: output.quiet)
        } catch {
            throw CommandLineError(error, tempo: override)
        }
    }
}
