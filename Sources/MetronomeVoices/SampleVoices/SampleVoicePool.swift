import Synchronization

/// The mixer's pool of sample voices — clicks and sample notes — in memory allocated once, in `init`.
///
/// Each of the `capacity` voices has a twin slot, so that a stolen voice can fade out while its successor starts.
///
/// Invariant: `active[0..<activeCount]` (the slots in use, in start order) and `free[0..<freeCount]` (a stack of
/// unused slots) together hold every slot once; `soundingCount` counts the active voices not fading, never more than
/// `capacity`.
///
/// Threads: created and freed on a control thread, with its `Mixer`; `stolenCount` from any thread; everything else
/// on the render thread only, from `Mixer.render(into:frameCount:)`, and real-time safe: no allocation, lock, log or
/// Foundation call.
package final class SampleVoicePool {
    /// Voices that may sound at once before the oldest is stolen.
    package let capacity: Int
    /// Length of a stolen or stopped voice's fade.
    private let fadeFrames: Int
    /// The slots, `2 × capacity` of them; those listed in `active` hold a voice.
    private let voices: UnsafeMutablePointer<Voice>
    /// Dense list of slot indices in use, `activeCount` long, in start order.
    private let active: UnsafeMutablePointer<Int>
    /// Voices sounding or fading. Render thread.
    package private(set) var activeCount = 0
    /// Stack of unused slot indices, `freeCount` long.
    private let free: UnsafeMutablePointer<Int>
    private var freeCount: Int
    /// Voices in use that are not fading out (`SampleVoicePool+Render` ends some).
    package var soundingCount = 0
    /// Start order, for stealing the oldest.
    private var nextSerial: UInt64 = 0
    /// Voices stolen (`stolenCount`).
    private let stolen = Atomic<Int>(0)

    /// Allocates the pool. Control thread.
    /// - Parameters:
    ///   - capacity: voices that may sound at once; twice as many slots are allocated.
    ///   - fadeFrames: the fade given to a stolen or stopped voice.
    package init(capacity: Int, fadeFrames: Int) {
        self.capacity = capacity
        self.fadeFrames = fadeFrames
        let slotCount = capacity * 2
        voices = .allocate(capacity: slotCount)
        active = .allocate(capacity: slotCount)
        free = .allocate(capacity: slotCount)
        for index in 0..<slotCount { free[index] = slotCount - 1 - index }
        freeCount = slotCount
    }

    deinit {
        voices.deallocate()
        active.deallocate()
        free.deallocate()
    }

    /// Voices stolen because the pool was full. Any thread.
    package var stolenCount: Int { stolen.load(ordering: .relaxed) }

    /// Whether no voice sounds or fades: rendering would add nothing. Render thread.
    package var isIdle: Bool { activeCount == 0 }

    /// Adds every active voice's next `count` frames to the mix and frees the voices that end. Render thread.
    ///
    /// Voices are summed in the order they started, so a block's mix never depends on where earlier blocks ended.
    /// - Complexity: O(active voices × `count`).
    @inline(__always)
    package func render(mixLeft: UnsafeMutablePointer<Float>, mixRight: UnsafeMutablePointer<Float>, count: Int) {
        var index = 0
        while index < activeCount {
            if renderVoice(voices + active[index], mixLeft: mixLeft, mixRight: mixRight, count: count) {
                index += 1
            } else {
                releaseSlot(at: index)
            }
        }
    }

    /// Starts the sample of a `startVoice` command `offset` frames into the coming block, stealing the oldest voice
    /// when `capacity` voices sound. Render thread.
    /// - Complexity: O(active voices) when a voice is stolen, O(1) otherwise.
    package func start(_ command: MixerCommand, offset: Int) {
        guard command.rate > 0, command.rate.isFinite, command.gain > 0 else { return }
        if soundingCount == capacity { stealOldest() }
        if freeCount == 0 { dropQuietestFade() }
        freeCount -= 1
        let slot = free[freeCount]
        let gains = PanLaw.gains(pan: command.pan, stereoSource: command.sample.isStereo)
        (voices + slot).initialize(
            to: Voice(
                sample: command.sample,
                position: 0,
                increment: max(1, UInt64((command.rate * 4_294_967_296).rounded())),
                gainLeft: command.gain * gains.left,
                gainRight: command.gain * gains.right,
                stepLeft: 0,
                stepRight: 0,
                startOffset: offset,
                fadeRemaining: 0,
                isFading: false,
                serial: nextSerial,
                tag: command.tag,
                loopStart: UInt64(max(0, command.loopStart)) << 32,
                loopEnd: UInt64(max(0, command.loopEnd)) << 32,
                releaseFrames: Int(max(1, command.releaseFrames)),
                releaseOffset: -1))
        nextSerial &+= 1
        active[activeCount] = slot
        activeCount += 1
        soundingCount += 1
    }

    /// Fades every voice from the start of the block the command was drained in. Render thread.
    /// - Complexity: O(active voices).
    package func fadeOutAll() {
        for index in 0..<activeCount where !voices[active[index]].isFading {
            voices[active[index]].beginFade(frames: fadeFrames)
            soundingCount -= 1
        }
    }

    /// Marks every sounding voice with `tag` to begin its release at `offset` frames into the block. Render thread.
    /// - Complexity: O(active voices).
    package func releaseVoices(tag: UInt32, offset: Int) {
        guard tag != 0 else { return }
        for index in 0..<activeCount {
            let voice = voices + active[index]
            if voice.pointee.tag == tag, !voice.pointee.isFading, voice.pointee.releaseOffset < 0 {
                voice.pointee.releaseOffset = offset
            }
        }
    }

    private func stealOldest() {
        var oldest = -1
        var oldestSerial = UInt64.max
        for index in 0..<activeCount {
            let voice = voices[active[index]]
            if !voice.isFading, voice.serial < oldestSerial {
                oldest = active[index]
                oldestSerial = voice.serial
            }
        }
        guard oldest >= 0 else { return }
        voices[oldest].beginFade(frames: fadeFrames)
        soundingCount -= 1
        stolen.add(1, ordering: .relaxed)
    }

    /// Only reached when every twin slot holds a fading voice (more steals than the capacity within one fade time):
    /// the fade closest to silence is cut.
    private func dropQuietestFade() {
        var quietest = 0
        for index in 1..<activeCount
        where voices[active[index]].isFading
            && (!voices[active[quietest]].isFading
                || voices[active[index]].fadeRemaining < voices[active[quietest]].fadeRemaining)
        {
            quietest = index
        }
        releaseSlot(at: quietest)
    }

    /// Frees the voice at `index` of `active`, keeping the others in the order they started: voices are summed in
    /// that order, so the mix of a block never depends on where earlier blocks ended (live and offline renders cut
    /// blocks differently and must stay bit-identical).
    private func releaseSlot(at index: Int) {
        let slot = active[index]
        if !voices[slot].isFading { soundingCount -= 1 }
        activeCount -= 1
        for later in index..<activeCount { active[later] = active[later + 1] }
        free[freeCount] = slot
        freeCount += 1
    }
}
