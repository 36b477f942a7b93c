import Foundation
import MetronomeModel
import MetronomeMusic
import MetronomePatterns
import MetronomeTestSupport
import Testing

/// Writes random valid .metro files and, beside each, the sections the documented rules say it means.
struct PatternGenerator {
    var random: SeededGenerator

    /// The sticky state, modelled from Patterns/README.md independently of the parser.
    struct Sticky {
        var tempo: (Double, Double?) = (120, nil)
        var meter = Meter.fourFour
        var groups: [Int]?
        var accents: AccentPattern?
        var subdivision = 1
        var subdivisionLevels: [BeatLevel] = [.normal]
        var swing: Swing?
        var volume: Float = 1
        var gap: GapPractice?
        var layers: [PolyLayer] = []
    }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
    mutating func letters(_ count: Int) -> [BeatLevel] {
        (0..<count).map { _ in pick([BeatLevel.accent, .normal, .soft, .silent]) }
    }

    /// Random clauses, applied to `state`; returns their text.
    mutating func clauses(_ state: inout Sticky) -> String {
        var words: [String] = []
        if chance(50) {
            let (note, factor) = pick([("", 1.0), ("4=", 1.0), ("8=", 0.5), ("4.=", 1.5), ("2=", 2.0)])
            let start = Double(Int.random(in: 40...300, using: &random))
            if chance(30) {
                let end = Double(Int.random(in: 40...300, using: &random))
                words.append("tempo \(note)\(Int(start))-\(Int(end))")
                state.tempo = (start * factor, end == start ? nil : end * factor)
            } else {
                words.append("tempo \(note)\(Int(start))")
                state.tempo = (start * factor, nil)
            }
        }
        var meterChanged = false
        if chance(40) {
            let meter = try! Meter(beats: Int.random(in: 1...12, using: &random), unit: pick([2, 4, 8, 16]))
            state.meter = meter
            state.groups = nil
            state.accents = nil
            meterChanged = true
            var text = "meter \(meter)"
            if meter.beats >= 4, chance(50) {
                var groups: [Int] = []
                var left = meter.beats
                while left > 0 {
                    let size = min(left, Int.random(in: 2...3, using: &random))
                    groups.append(size)
                    left -= size
                }
                state.groups = groups
                text += " " + groups.map(String.init).joined(separator: "+")
            }
            words.append(text)
        }
        if chance(30) || (meterChanged && chance(30)) {
            let levels = letters(state.meter.beats)
            state.accents = AccentPattern(levels: levels)
            words.append("accent " + String(levels.map(\.letter)))
        }
        if chance(30) {
            let count = Int.random(in: 1...6, using: &random)
            var text = "subdivide \(count)"
            state.subdivisionLevels = [.normal]
            if count > 1, chance(60) {
                let levels = letters(chance(50) ? 1 : count - 1)
                state.subdivisionLevels = levels
                text += " " + String(levels.map(\.letter))
            }
            state.subdivision = count
            words.append(text)
        }
        if chance(20) {
            if chance(20) {
                words.append("swing off")
                state.swing = nil
            } else {
                let note = pick([8, 16])
                let amount = Int.random(in: 0...75, using: &random)
                state.swing = try! Swing(note: note, amount: Double(amount) / 100)
                words.append("swing \(note) \(amount)%")
            }
        }
        if chance(20) {
            let percent = Int.random(in: 0...100, using: &random)
            state.volume = Float(Double(percent) / 100)
            words.append("volume \(percent)%")
        }
        if chance(15) {
            let play = Int.random(in: 1...4, using: &random)
            let mute = Int.random(in: 1...4, using: &random)
            state.gap = try! GapPractice(play: play, mute: mute)
            words.append("gap play \(play) mute \(mute)")
        }
        if chance(15) {
            var layers: [PolyLayer] = []
            var layerWords: [String] = []
            for _ in 0..<Int.random(in: 1...2, using: &random) {
                let count = Int.random(in: 1...9, using: &random)
                let sound = pick(ClickStyle.allCases)
                let levels = letters(count)
                layers.append(try! PolyLayer(count: count, sound: sound, levels: levels))
                layerWords.append("layer \(count) \(sound.rawValue) \(String(levels.map(\.letter)))")
            }
            // Layers keep their order (the clauses move together when the line is shuffled).
            words.append(layerWords.joined(separator: " "))
            state.layers = layers
        }
        return words.shuffled(using: &random).joined(separator: " ")
    }

    func section(_ state: Sticky, label: String?, bars: Int?) throws -> TempoSection {
        try TempoSection(
            label: label, bars: bars, meter: state.meter, tempo: BPM(state.tempo.0),
            endTempo: state.tempo.1.map { try BPM($0) }, accents: state.accents, subdivision: state.subdivision,
            subdivisionLevels: state.subdivisionLevels, volume: state.volume, groups: state.groups,
            swing: state.swing, gap: state.gap, layers: state.layers)
    }

    /// A file and the sections it means.
    mutating func file() throws -> (text: String, sections: [TempoSection]) {
        var lines = ["# generated"]
        var sections: [TempoSection] = []
        var sticky = Sticky()
        let count = Int.random(in: 1...6, using: &random)
        for index in 0..<count {
            if chance(40) {
                var next = sticky
                let text = clauses(&next)
                if !text.isEmpty {
                    lines.append(text)
                    sticky = next
                }
            }
            var own = sticky
            let inline = clauses(&own)
            let label = chance(50) ? "s\(index)" : nil
            let forever = index == count - 1 && own.tempo.1 == nil && chance(20)
            let bars = forever ? nil : Int.random(in: 1...16, using: &random)
            let repeats = !forever && chance(20) ? Int.random(in: 2...3, using: &random) : 1
            let length = bars.map { "\($0) bars" } ?? "forever"
            lines.append(
                (label.map { "\($0): " } ?? "") + length + (repeats > 1 ? " x\(repeats)" : "") + " " + inline)
            for _ in 0..<repeats { sections.append(try section(own, label: label, bars: bars)) }
        }
        return (lines.joined(separator: "\n") + "\n", sections)
    }
}

/// Random edits of a text: characters deleted, inserted or replaced, lines duplicated, dropped or swapped.
func mutate(_ text: String, using random: inout SeededGenerator) -> String {
    var characters = Array(text)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let alphabet = Array("0123456789 :#+-=.%/xXo\nabz\tbarsrepeatendplay")
    switch Int.random(in: 0..<6, using: &random) {
    case 0 where !characters.isEmpty:
        characters.remove(at: Int.random(in: 0..<characters.count, using: &random))
        return String(characters)
    case 1:
        characters.insert(
            alphabet.randomElement(using: &random)!, at: Int.random(in: 0...characters.count, using: &random))
        return String(characters)
    case 2 where !characters.isEmpty:
        characters[Int.random(in: 0..<characters.count, using: &random)] = alphabet.randomElement(using: &random)!
        return String(characters)
    case 3 where !lines.isEmpty:
        let index = Int.random(in: 0..<lines.count, using: &random)
        lines.insert(lines[index], at: index)
    case 4 where !lines.isEmpty:
        lines.remove(at: Int.random(in: 0..<lines.count, using: &random))
    default:
        guard lines.count > 1 else { return text + "end\n" }
        lines.swapAt(Int.random(in: 0..<lines.count, using: &random), Int.random(in: 0..<lines.count, using: &random))
    }
    return lines.joined(separator: "\n")
}

@Suite("Pattern language sweeps")
struct PatternSweepTests {
    @Test("500 generated files round-trip: parse gives the sections the rules say, and the same timeline")
    func roundTrip() throws {
        var generator = PatternGenerator(random: SeededGenerator(seed: 20261121))
        var mismatches = 0
        for _ in 0..<500 {
            let (text, expected) = try generator.file()
            let score = try MetroPattern.parse(text, file: "gen.metro").score()
            guard score.sections == expected else {
                mismatches += 1
                if mismatches <= 3 { Issue.record("this file expands differently than the rules say:\n\(text)") }
                continue
            }
            var mine = ClickTimeline(map: try TempoMap(sections: score.sections))
            var theirs = ClickTimeline(map: try TempoMap(sections: expected))
            for _ in 0..<300 {
                let event = mine.next()
                #expect(event == theirs.next())
                if event == nil { break }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("20000 mutated files never crash: each plays or gives an error inside the text")
    func mutations() throws {
        var random = SeededGenerator(seed: 42)
        var generator = PatternGenerator(random: SeededGenerator(seed: 7))
        var seeds = try shippedPatterns.map { try String(contentsOfFile: patternsFolder + "/" + $0, encoding: .utf8) }
        for _ in 0..<20 { seeds.append(try generator.file().text) }
        var errors = 0
        for index in 0..<20_000 {
            var text = seeds[index % seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &random) { text = mutate(text, using: &random) }
            let lines = sourceLines(of: text)
            do {
                let score = try MetroPattern.parse(text, file: "m.metro").score()
                let map = try score.map(sampleRate: .standard)
                var timeline = ClickTimeline(map: map)
                for _ in 0..<50 { _ = timeline.next() }
            } catch let error as PatternError {
                errors += 1
                let inside = (1...max(1, lines.count)).contains(error.line)
                #expect(inside, "line \(error.line) of \(lines.count): \(error.description)")
                guard inside else { continue }
                let line = lines.isEmpty ? "" : lines[error.line - 1]
                #expect(error.sourceLine == line, "\(error.description)")
                #expect((1...line.count + 1).contains(error.column), "\(error.description)")
                #expect(error.description.hasPrefix("m.metro:\(error.line):\(error.column): error: "))
            }
        }
        #expect(errors > 5_000)
    }
}
