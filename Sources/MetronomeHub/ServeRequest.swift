import Glibc
import MetronomeApp
import MetronomeModel
import MetronomeOSC
import MetronomeService
import MetronomeWeb

/// What `metronome serve` is asked for, as its options give it (text and flags, unchecked): what to play, where to
/// listen for OSC and serve the web remote, the folders of patterns, the click's and the notes' settings.
/// `checked(say:)` applies serve's rules and makes the plan and the `ServeSetup` a `LiveCommand` serves; every
/// mistake is a `CommandLineError` naming the option as the user wrote it.
public struct ServeRequest: Sendable {
    /// A pattern file, a pattern's name or a MIDI file (`ServedFile`); nil for a click from the settings.
    public var file: String?
    /// `--osc [HOST:]PORT`: where to listen for OSC over UDP (a port alone is on 127.0.0.1); nil for
    /// 127.0.0.1:`defaultOSCPort`.
    public var osc: String?
    /// `--http [HOST:]PORT`: where to serve the web remote; nil for none.
    public var http: String?
    /// `--http-token`: the web remote requires its token on a loopback address too (only with `http`).
    public var httpToken: Bool
    /// `--patterns`: folders of .metro patterns, looked up after the shipped ones and listed on the web remote.
    public var patternFolders: [String]
    /// `--wait`: the service waits for a play command instead of playing at once.
    public var waits: Bool
    /// Whether a web remote's URL with a token for another machine is also drawn as a QR code (the CLI: standard
    /// error is a terminal and `--quiet` is not given).
    public var qrCode: Bool
    /// The click's and the output's settings (`SettingForm.clickPlan`), `--sample-rate` among them.
    public var click: SettingForm
    /// The notes' settings (`SettingForm.voicing`): the service's instrument, and a served MIDI file's
    /// `--soundfont`.
    public var notes: SettingForm

    /// The OSC port when `osc` is nil (klick has none; 7770 is ours).
    public static let defaultOSCPort: UInt16 = 7770

    /// A request; the values are checked by `checked(say:)`.
    public init(
        file: String?, osc: String? = nil, http: String? = nil, httpToken: Bool = false, patternFolders: [String] = [],
        waits: Bool = false, qrCode: Bool = false, click: SettingForm, notes: SettingForm
    ) {
        self.file = file
        self.osc = osc
        self.http = http
        self.httpToken = httpToken
        self.patternFolders = patternFolders
        self.waits = waits
        self.qrCode = qrCode
        self.click = click
        self.notes = notes
    }

    /// Checks the request, in this order: the pattern folders (one that cannot be opened is exit 66), the web
    /// remote's address (64; `--http-token` without `--http` 64), the OSC address (64), the file served (missing 66,
    /// malformed 65), the plan (`SettingForm.clickPlan`), the notes' voicing (64; a `--soundfont` is refused but for a
    /// MIDI file, whose notes it plays), and the service's instrument (a bank file missing 66 or malformed 65).
    /// - Parameter say: writes whole lines for the user (a MIDI file served with no SoundFont says so): standard
    ///   error for the CLI.
    /// - Returns: the plan to serve and what the service listens on and plays notes with.
    /// - Throws: `CommandLineError` with its line and exit code.
    public func checked(say: (String) -> Void) throws(CommandLineError) -> (plan: ClickPlan, setup: ServeSetup) {
        var folderEntries: [WebPatterns.Entry] = []
        for folder in patternFolders {
            guard let entries = WebPatterns.files(in: folder) else {
                throw CommandLineError(
                    .noInput, "--patterns \(folder): cannot open the folder (\(String(cString: strerror(errno))))")
            }
            folderEntries += entries
        }
        let library = PatternLibrary(extraFolders: patternFolders)
        let web = try webSetup(library: library, folders: folderEntries)
        let endpoint = try oscEndpoint()
        if let file, SetlistDocument.isSetlist(path: file) {
            return try setlist(file, library: library, web: web, endpoint: endpoint, say: say)
        }
        let served = try ServedFile(file, library: library, sampleRate: sampleRate)
        var plan = try click.clickPlan(served.source).plan
        plan.waits = waits
        let voicing: Voicing
        do { voicing = try notes.voicing(fileInstrument: plan.instrument) } catch { throw CommandLineError(error) }
        if case .midi(let midi) = served {
            plan.polyphony = voicing.polyphony
            plan.notes = try midi.notes(on: plan.map, soundfont: notes["--soundfont"], say: say)
        } else if voicing.font != nil {
            throw CommandLineError(
                .usage,
                "--soundfont applies to 'serve' of a MIDI file; the service's own notes play a bank or a built-in "
                    + "instrument")
        }
        var settings: ServiceSettings
        do { settings = try ServiceSettings(plan: plan, voicing: voicing, patterns: library) } catch {
            throw CommandLineError(error)
        }
        settings.patternName = file ?? ""
        return (plan, ServeSetup(endpoint: endpoint, settings: settings, web: web))
    }

    /// Serving a set: every song checked (`SetlistDocument`), the click's settings refused but `--sample-rate` and
    /// `--quiet` (each song's are in the file), `--soundfont` the font of its MIDI files, the notes' kept for the
    /// service's own notes.
    private func setlist(
        _ file: String, library: PatternLibrary, web: WebSetup?, endpoint: OSCEndpoint, say: (String) -> Void
    ) throws(CommandLineError) -> (plan: ClickPlan, setup: ServeSetup) {
        if let name = click.given.first(where: { !["--sample-rate", "--quiet"].contains($0) }) {
            throw CommandLineError(.usage, "\(name) does not apply to a setlist: each song's settings are in the file")
        }
        var set: SetlistPlan
        let rate = try sampleRate()
        do { set = try SetlistDocument(path: file, library: library).plan(sampleRate: rate) } catch {
            throw CommandLineError(error)
        }
        // --soundfont is the font the set's MIDI files play through.
        set = try set.withNotes(soundfont: notes["--soundfont"], say: say)
        var plan = SetlistPlayer.firstPlan(set)
        plan.waits = waits
        var voicing: Voicing
        do { voicing = try notes.voicing() } catch { throw CommandLineError(error) }
        voicing.font = nil
        var settings: ServiceSettings
        do { settings = try ServiceSettings(plan: plan, voicing: voicing, patterns: library) } catch {
            throw CommandLineError(error)
        }
        settings.patternName = file
        return (plan, ServeSetup(endpoint: endpoint, settings: settings, web: web, setlist: set))
    }

    /// The web remote's setup, with the patterns a page may load; nil without `--http`.
    private func webSetup(library: PatternLibrary, folders: [WebPatterns.Entry]) throws(CommandLineError)
        -> WebSetup?
    {
        guard let http else {
            if httpToken { throw CommandLineError.usage(option: "--http-token", "needs --http [HOST:]PORT") }
            return nil
        }
        do {
            return WebSetup(
                address: try WebAddress(parsing: http), token: httpToken, qrCode: qrCode,
                patterns: WebPatterns.served(started: file, library: library, folders: folders))
        } catch {
            throw CommandLineError.usage(option: "--http", error.description)
        }
    }

    /// `--sample-rate`, checked (64); `ServedFile` asks for it only for a MIDI file.
    private func sampleRate() throws(CommandLineError) -> SampleRate {
        do { return try click.sampleRate() } catch { throw CommandLineError(error) }
    }

    /// Where to listen for OSC: `osc`, a port alone on loopback (as `--http PORT` is), or the default.
    private func oscEndpoint() throws(CommandLineError) -> OSCEndpoint {
        guard let osc else { return .loopback(port: ServeRequest.defaultOSCPort) }
        let address = !osc.isEmpty && osc.allSatisfy(\.isASCII) && osc.allSatisfy(\.isNumber) ? "127.0.0.1:\(osc)" : osc
        do { return try OSCEndpoint(parsing: address) } catch {
            throw CommandLineError.usage(option: "--osc", error.description)
        }
    }
}
