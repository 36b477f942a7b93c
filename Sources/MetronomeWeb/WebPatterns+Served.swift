import MetronomeApp

extension WebPatterns {
    /// The patterns `serve` lists on its page: the pattern served (`started`; not a MIDI file), under its name as
    /// given when that is a bare name, else its file's name without `.metro`; the shipped patterns (`library`'s);
    /// then `folders`' patterns (`files(in:)` of each `--patterns` folder), in order.
    /// - Parameters:
    ///   - started: what `serve` was started with (a name or a path), or nil for a click.
    ///   - library: where a bare name is looked up, and the shipped patterns.
    ///   - folders: the entries of the `--patterns` folders.
    public static func served(started: String?, library: PatternLibrary, folders: [Entry]) -> WebPatterns {
        var entries: [Entry] = []
        if let started, !MIDIPlayback.isMIDI(path: started) {
            let document = library.document(named: started)
            var name = started.contains("/") ? String(started.split(separator: "/").last ?? "") : started
            if name.hasSuffix(".metro"), name.count > 6 { name = String(name.dropLast(6)) }
            entries.append(Entry(name: name, path: document.path))
        }
        for (name, document) in library.shippedPatterns() ?? [] {
            entries.append(Entry(name: name, path: document.path))
        }
        return WebPatterns(entries + folders)
    }
}

extension WebAccess {
    /// The token a remote on `address` asks for: a new random one (`randomToken`) when the address is not a loopback
    /// one (another machine could reach it) or `required` (`--http-token`), else none.
    public static func token(for address: WebAddress, required: Bool) -> String? {
        required || !address.isLoopback ? randomToken() : nil
    }
}
