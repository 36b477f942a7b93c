import MetronomeKit

/// Does with a parsed score what `play` and `check` do next, within a bounded budget: builds its map from the
/// start, from bar 2 and from its first two labels (as `--start-at` does), asks for its length, and walks the first
/// 64 clicks and 16 note batches. Refusals are typed (`InvalidValue`) and their messages are rendered, as the command
/// line prints them; clicks must come in frame order at finite exact frames.
/// - Parameter score: a score the parser accepted.
public func exercise(_ score: PatternScore) {
    let starts: [String?] = [nil, "2"] + score.labels.prefix(2).map(\.name)
    for start in starts {
        let map: TempoMap
        do throws(InvalidValue) { map = try score.map(sampleRate: .standard, startAt: start) } catch {
            _ = error.description
            continue
        }
        _ = (map.endFrame, map.barCount, map.frame(ofBar: map.firstBar))
        var clicks = ClickTimeline(map: map)
        var previous = SampleTime.min
        for _ in 0..<64 {
            guard let click = clicks.next() else { break }
            require(click.exactFrame.isFinite, "click at a non-finite frame: \(click)")
            require(click.frame >= previous, "clicks out of order: \(click.frame) after \(previous)")
            previous = click.frame
        }
        var notes = PatternNotes(map: map, defaults: ArpeggioSettings())
        for _ in 0..<16 where notes.nextBatch() == nil { break }
    }
}
