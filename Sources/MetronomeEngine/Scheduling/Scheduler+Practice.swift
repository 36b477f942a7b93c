import MetronomeMusic

extension Scheduler {
    /// The practice timer's end at `event`, the next click to push: nil when `event` is not where the practice ends
    /// (or there is no timer); true when it is and the end sound was pushed on its frame in place of the click (which
    /// becomes the end frame: nothing at or after it starts, MIDI clock stops there); false when the ring was full (the
    /// same click comes back on the next pass). Scheduling thread.
    func endPractice(at event: ClickEvent) -> Bool? {
        guard var timer = practice else { return nil }
        defer { practice = timer }
        guard timer.isEnd(event) else { return nil }
        guard ring.push(.start(timer.sound.reference, at: event.frame, gain: gain)) else { return false }
        timer.ended(at: event.frame)
        endFrame = min(endFrame ?? event.frame, event.frame)
        midiClock.endFrame = endFrame
        return true
    }
}
