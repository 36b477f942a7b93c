import Synchronization

/// The mixer's pool of SoundFont voices, its 32 channels, and the block's font commands waiting for their frame, in
/// memory allocated once, in `init`.
///
/// Each of the `polyphony` voices has a twin slot (a stolen voice fades while its successor starts) and, per slot,
/// `FontVoice.storageFloats` floats of storage: its period buffer and envelope power table. Commands are applied at
/// their exact frame inside the block (`render`), so the block is cut wherever one falls.
///
/// Invariant: `active[0..<activeCount]` (the slots in use, in start order) and `free[0..<freeCount]` (a stack of
/// unused slots) together hold every slot once; `soundingCount` counts the active voices not fading, never more than
/// `polyphony`; `events[0..<eventCount]` is sorted by offset.
///
/// Threads: created and freed on a control thread, with its `Mixer`; `stolenCount` from any thread; everything else
/// on the render thread only, from `Mixer.render(into:frameCount:)`, and real-time safe: no allocation, lock, log or
/// Foundation call.
package final class FontVoicePool {
    /// Voices that may sound at once before the least important is stolen.
    package let polyphony: Int
    /// Length of a stolen or stopped voice's fade.
    let fadeFrames: Int
    /// The output's frames per second, which voices pitch their samples to.
    let outputRate: Int
    /// The slots, `2 × polyphony` of them; those listed in `active` hold a voice.
    let voices: UnsafeMutablePointer<FontVoice>
    /// Each slot's period buffer and envelope power table (`FontVoice.storageFloats` floats a slot).
    let storage: UnsafeMutablePointer<Float>
    /// Dense list of slot indices in use, `activeCount` long, in start order.
    let active: UnsafeMutablePointer<Int>
    /// Voices sounding or fading. Render thread.
    package var activeCount = 0
    /// Stack of unused slot indices, `freeCount` long.
    let free: UnsafeMutablePointer<Int>
    package var freeCount: Int
    /// Voices in use that are not fading out.
    package var soundingCount = 0
    /// Start order, for stealing the oldest among equals.
    var nextSerial: UInt64 = 0
    /// The channels' controllers, pitch wheel and pressure, `MixerCommand.fontChannelCount` of them.
    let channels: UnsafeMutablePointer<FontChannel>
    /// The block's font commands, each with its frame offset inside the block, `eventCount` long.
    private let events: UnsafeMutablePointer<(offset: Int, command: MixerCommand)>
    private let eventCapacity: Int
    private var eventCount = 0
    /// Voices stolen (`stolenCount`).
    let stolen = Atomic<Int>(0)

    /// Allocates the pool. Control thread.
    /// - Parameters:
    ///   - polyphony: voices that may sound at once; twice as many slots are allocated.
    ///   - fadeFrames: the fade given to a stolen or stopped voice.
    ///   - outputRate: the output's frames per second.
    ///   - eventCapacity: font commands a block may hold (the command ring's capacity).
    package init(polyphony: Int, fadeFrames: Int, outputRate: Int, eventCapacity: Int) {
        self.polyphony = polyphony
        self.fadeFrames = fadeFrames
        self.outputRate = outputRate
        let slotCount = polyphony * 2
        voices = .allocate(capacity: slotCount)
        storage = .allocate(capacity: slotCount * FontVoice.storageFloats)
        storage.initialize(repeating: 0, count: slotCount * FontVoice.storageFloats)
        active = .allocate(capacity: slotCount)
        free = .allocate(capacity: slotCount)
        for index in 0..<slotCount { free[index] = slotCount - 1 - index }
        freeCount = slotCount
        channels = .allocate(capacity: MixerCommand.fontChannelCount)
        channels.initialize(repeating: FontChannel(), count: MixerCommand.fontChannelCount)
        self.eventCapacity = eventCapacity
        events = .allocate(capacity: eventCapacity)
    }

    deinit {
        voices.deallocate()
        storage.deallocate()
        active.deallocate()
        free.deallocate()
        channels.deallocate()
        events.deallocate()
    }

    /// Voices stolen because the pool was full. Any thread.
    package var stolenCount: Int { stolen.load(ordering: .relaxed) }

    /// Whether no voice sounds and no command waits: rendering would add nothing. Render thread.
    package var isIdle: Bool { activeCount == 0 && eventCount == 0 }

    /// Whether one more command fits in this block's list. Render thread.
    package var canQueue: Bool { eventCount < eventCapacity }

    /// Keeps a font command (or a release or fade that concerns font voices too) until its frame inside the block.
    /// Commands arrive in frame order, so the list stays sorted by offset. Render thread; `canQueue` must hold.
    /// - Complexity: O(1).
    @inline(__always)
    package func queue(_ command: MixerCommand, offset: Int) {
        events[eventCount] = (offset, command)
        eventCount += 1
    }

    /// Adds the voices' next `count` frames to the mix, applying the block's queued commands at their exact frames:
    /// the block is cut at every command's frame, each piece rendered with the channel state and voices the commands
    /// before it left. Empties the command list. Render thread.
    /// - Complexity: O(active voices × `count` + commands × active voices).
    package func render(mixLeft: UnsafeMutablePointer<Float>, mixRight: UnsafeMutablePointer<Float>, count: Int) {
        var from = 0
        var event = 0
        while true {
            let to = event < eventCount ? events[event].offset : count
            if to > from { renderSpan(mixLeft: mixLeft, mixRight: mixRight, from: from, to: to) }
            guard event < eventCount else { break }
            while event < eventCount, events[event].offset == to {
                apply(events[event].command)
                event += 1
            }
            from = to
        }
        eventCount = 0
    }

    private func renderSpan(
        mixLeft: UnsafeMutablePointer<Float>, mixRight: UnsafeMutablePointer<Float>, from begin: Int, to end: Int
    ) {
        var index = 0
        while index < activeCount {
            if renderVoice(voices + active[index], mixLeft: mixLeft, mixRight: mixRight, from: begin, to: end) {
                index += 1
            } else {
                releaseSlot(at: index)
            }
        }
    }

    /// Frees the voice at `index` of the active list, keeping the others in start order (the order they are summed
    /// in, so a mix never depends on block boundaries).
    func releaseSlot(at index: Int) {
        let slot = active[index]
        if !voices[slot].isFading { soundingCount -= 1 }
        activeCount -= 1
        for later in index..<activeCount { active[later] = active[later + 1] }
        free[freeCount] = slot
        freeCount += 1
    }
}
