import MetronomePatterns
import MetronomeTestSupport

/// Writes random valid setlists and, beside each, the set the documented rules say it means (sticky `then` and
/// `switch` lines, a song's own clause first), modelled apart from the parser.
struct SetlistRandom {
    var random: SplitMix

    init(seed: UInt64) { random = SplitMix(seed: seed) }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }

    mutating func title() -> String {
        let words = ["Blue", "Note", "#1", "waltz", "Take Five", "it's", "Ünïcode", "a\tb", "x"]
        return (0..<Int.random(in: 1...3, using: &random)).map { _ in pick(words) }.joined(separator: " ")
    }

    mutating func advance() -> (text: String, value: SetlistSong.Advance) {
        if chance(40) { return ("wait", .wait) }
        let seconds = pick([0, 0.5, 4, 12.25, 600])
        let text = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        return ("after \(text)s", .after(seconds))
    }

    mutating func setlist() -> (String, Setlist) {
        var lines: [String] = []
        var title: String?
        if chance(50) {
            title = self.title()
            lines.append("setlist \"\(title!)\"" + (chance(30) ? "  # the set" : ""))
        }
        var advance = SetlistSong.Advance.wait
        var landing = SetlistSong.Landing.nextBar
        var songs: [SetlistSong] = []
        for _ in 0..<Int.random(in: 1...12, using: &random) {
            if chance(20) { lines.append(pick(["", "# a comment", "   "])) }
            if chance(20) {
                let (text, value) = self.advance()
                lines.append("then \(text)")
                advance = value
            }
            if chance(20) {
                landing = pick(SetlistSong.Landing.allCases)
                lines.append("switch \(landing.rawValue)")
            }
            let songTitle = self.title()
            var words = ["song", "\"\(songTitle)\""]
            let source: SetlistSong.Source
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                let name = pick(["basic", "waltz", "song", "rock-8ths"])
                source = .pattern(name: name)
                words += ["pattern", name]
            case 1:
                let path = pick(["a.metro", "sub/b.klick", "/abs/c.mid", "with space.metro"])
                source = .file(path: path)
                words += ["file", path.contains(" ") || chance(30) ? "\"\(path)\"" : path]
            default:
                let tempo = pick(["96", "120", "0", "abc"])
                let meter = pick(["3/4", "7/8=2+2+3", "4/4"])
                source = .click(tempo: tempo, meter: meter)
                words += ["click", tempo, meter]
            }
            var song = SetlistSong(title: songTitle, source: source, advance: advance, landing: landing)
            var keywords = ["count-in", "sound", "volume", "bars"]
            if case .click = source {} else { keywords += ["bpm", "tempo-scale", "start-at"] }
            var clauses: [[String]] = []
            for keyword in keywords where chance(30) {
                let value = pick(["1", "0.8", "wood", "x", "120"])
                let option = "--" + keyword
                song.settings.append(.init(option: option, text: value, column: 0))
                clauses.append([keyword, value])
            }
            if chance(30) {
                let (text, value) = self.advance()
                song.advance = value
                clauses.append(["then"] + text.split(separator: " ").map(String.init))
            }
            if chance(30) {
                song.landing = pick(SetlistSong.Landing.allCases)
                clauses.append(["switch", song.landing.rawValue])
            }
            // Settings in any order keep their written order; `then` and `switch` are not settings.
            clauses.shuffle(using: &random)
            let order = clauses.map { "--" + $0[0] }
            song.settings.sort { order.firstIndex(of: $0.option)! < order.firstIndex(of: $1.option)! }
            lines.append((words + clauses.flatMap { $0 }).joined(separator: pick([" ", "  ", "\t"])))
            songs.append(song)
        }
        return (
            lines.joined(separator: pick(["\n", "\r\n"])) + (chance(50) ? "\n" : ""),
            Setlist(title: title, songs: songs)
        )
    }
}
