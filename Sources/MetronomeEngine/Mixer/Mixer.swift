import MetronomeModel
import MetronomeVoices
import Synchronization

/// The real-time mixer: plays frame-stamped commands from a `CommandRing` through two preallocated voice pools,
/// applies the master gain and the limiter, and writes interleaved Float32 frames.
///
/// Each block, `render` drains the ring and hands every command to the pool it concerns: `SampleVoicePool` (clicks
/// and sample notes) or `FontVoicePool` (SoundFont voices and their channels); a release or a fade-out concerns
/// both. Each pool adds its voices to the stereo mix buffers; the master gain and the limiter follow, then the mix
/// is written out, in stereo or averaged to mono.
///
/// Its frame counter is the engine's only clock. Everything is allocated in `init`; `render(into:frameCount:)` is the
/// one real-time function.
///
/// MIDI messages in the ring (`MixerCommand.midi`) are not sound: each render call collects them, with their frames,
/// in `midiOut`, for an output with a MIDI port to send; other outputs leave them.
///
/// Threads: `render`, `skipping(to:)` and `playNow` from one render thread at a time (the audio callback or the file
/// writer loop); `setMasterGain`, `framePosition`, `lateEventCount`, `stolenVoiceCount` and `activeVoiceCount` from
/// any thread.
public final class Mixer: @unchecked Sendable {
    // @unchecked: the voice pools, the mix buffers, the limiter, the applied gain, the start floor and `playNow`'s
    // list are touched only by the one render thread (`render` is called from one thread at a time); everything read
    // or set from other threads (position, gain, counters, cutoff, the pools' steal counts) is an atomic; the rest is
    // immutable.
    /// The fixed configuration.
    public let configuration: MixerConfiguration
    /// Where commands arrive from.
    public let commands: CommandRing

    /// SoundFont channels: 16 for a MIDI file's channels, 16 more for note tracks played through fonts.
    public static let fontChannelCount = MixerCommand.fontChannelCount

    /// Clicks and sample notes.
    private let samples: SampleVoicePool
    /// SoundFont voices, their channels, and the block's font commands.
    private let fonts: FontVoicePool
    /// The block's stereo mix, `maximumBlockFrames` long, which both pools add to.
    private let mixLeft: UnsafeMutablePointer<Float>
    private let mixRight: UnsafeMutablePointer<Float>
    private var limiter: Limiter
    private var appliedGain: Float = 1

    private let position = Atomic<Int64>(0)
    private let requestedGainBits = Atomic<UInt32>(Float(1).bitPattern)
    private let lateEvents = Atomic<Int>(0)
    private let voicesInUse = Atomic<Int>(0)
    private let commandCutoff = Atomic<Int64>(.max)
    /// Voice starts and note ons stamped before it are dropped (`skipping(to:)`); the render thread's alone.
    private var startFloor: SampleTime = .min
    /// The fade-out `skipping(to:)` hands the font pool, built here so that the render thread builds nothing.
    private let fadeOutAll = MixerCommand.fadeOutAll(at: 0)
    /// Commands the render thread itself asked for (`playNow`), in frame order, merged with the ring's as they fall
    /// due; the render thread's alone.
    private let immediate: UnsafeMutablePointer<MixerCommand>
    private var immediateCount = 0
    /// How many commands `playNow` holds at most between renders.
    public static let immediateCapacity = 512
    /// The MIDI messages of the last `render` call, with their frames, for an output with a MIDI port to send.
    /// Render thread only: read it right after `render` returns.
    public let midiOut: MIDIOutbox

    /// Creates a mixer and allocates everything it will ever use. Call from a control thread.
    /// - Parameters:
    ///   - configuration: rate, channels, voice capacity, block size.
    ///   - commands: the ring the scheduler fills.
    ///   - masterGain: linear gain applied from the very first frame (later changes ramp over a block).
    public init(configuration: MixerConfiguration, commands: CommandRing, masterGain: Float = 1) {
        self.configuration = configuration
        self.commands = commands
        appliedGain = max(0, masterGain)
        requestedGainBits.store(appliedGain.bitPattern, ordering: .relaxed)
        samples = SampleVoicePool(capacity: configuration.voiceCapacity, fadeFrames: configuration.fadeFrames)
        fonts = FontVoicePool(
            polyphony: configuration.fontPolyphony, fadeFrames: configuration.fadeFrames,
            outputRate: configuration.sampleRate.framesPerSecond, eventCapacity: commands.capacity)
        mixLeft = .allocate(capacity: configuration.maximumBlockFrames)
        mixRight = .allocate(capacity: configuration.maximumBlockFrames)
        limiter = Limiter(sampleRate: configuration.sampleRate.framesPerSecond)
        midiOut = MIDIOutbox(capacity: commands.capacity)
        immediate = .allocate(capacity: Self.immediateCapacity)
        immediate.initialize(repeating: .fadeOutAll(at: 0), count: Self.immediateCapacity)
    }

    deinit {
        mixLeft.deallocate()
        mixRight.deallocate()
        immediate.deallocate()
    }

    /// Plays `command` from the render thread itself, between `render` calls: on its frame (at or after
    /// `framePosition`; an earlier one plays at the next block's first frame and counts as late), in frame order
    /// with the ring's commands, as if the scheduler had pushed it. An output's keyboard (`LiveKeyboard`) starts a
    /// note this way in the very period it arrives in. Real-time safe.
    /// - Returns: false when `immediateCapacity` commands already wait (the command is dropped).
    @discardableResult
    public func playNow(_ command: MixerCommand) -> Bool {
        guard immediateCount < Self.immediateCapacity else { return false }
        // Kept in frame order: the command goes after every one on or before its frame (they come nearly sorted).
        var index = immediateCount
        while index > 0, immediate[index - 1].frame > command.frame {
            immediate[index] = immediate[index - 1]
            index -= 1
        }
        immediate[index] = command
        immediateCount += 1
        return true
    }

    /// Frames rendered so far: the clock every event is stamped against.
    public var framePosition: SampleTime { position.load(ordering: .acquiring) }

    /// Events that reached the mixer after their frame had been rendered (they were played at once).
    public var lateEventCount: Int { lateEvents.load(ordering: .relaxed) }

    /// Voices stolen because their pool (sample voices or SoundFont voices) was full.
    public var stolenVoiceCount: Int { samples.stolenCount + fonts.stolenCount }

    /// Voices sounding or fading at the end of the last block.
    public var activeVoiceCount: Int { voicesInUse.load(ordering: .relaxed) }

    /// From now on, voice starts stamped at or after `frame` are dropped instead of played; voices already sounding
    /// finish normally, and other commands (a fade-out) still apply. Used to stop cleanly: nothing new starts,
    /// nothing is cut. Any thread.
    public func discardCommands(from frame: SampleTime) {
        commandCutoff.store(frame, ordering: .releasing)
    }

    /// Prepares a skip to `frame`, which the caller then renders into nothing (an output catching up with a seek):
    /// voices sounding now fade out (over the 5 ms of a fade-out), and voice starts and note ons stamped before
    /// `frame` are dropped, so no click started before the skip's end is heard cut short after it. Render thread,
    /// between `render` calls; real-time safe.
    public func skipping(to frame: SampleTime) {
        startFloor = frame
        samples.fadeOutAll()
        if fonts.canQueue { fonts.queue(fadeOutAll, offset: 0) }
    }

    /// Whether no voice is sounding or fading (as of the last block).
    public var isSilent: Bool { activeVoiceCount == 0 }

    /// Sets the master gain (linear); the change is ramped across the next block. Any thread.
    public func setMasterGain(_ gain: Float) {
        requestedGainBits.store(max(0, gain).bitPattern, ordering: .relaxed)
    }

    /// Renders `frameCount` interleaved frames into `output` (`frameCount × channels` floats), advancing the clock.
    ///
    /// Real-time safe: allocates nothing, takes no lock, logs nothing, makes no system call and calls no Foundation
    /// API. Never call anything that does from inside it. Commands are drained at the start of each internal block;
    /// a command stamped before the block is played at its first frame and counted as late.
    public func render(into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        midiOut.removeAll()
        var done = 0
        while done < frameCount {
            let count = min(configuration.maximumBlockFrames, frameCount - done)
            renderBlock(into: output + done * configuration.channels, count: count)
            done += count
        }
    }

    /// One block of at most `maximumBlockFrames`: drain the ring, mix both pools, apply the gain and the limiter,
    /// write the frames out, advance the clock.
    private func renderBlock(into output: UnsafeMutablePointer<Float>, count: Int) {
        let blockStart = position.load(ordering: .relaxed)
        drainCommands(blockStart: blockStart, blockEnd: blockStart + Int64(count))
        let gainSettled = Float(bitPattern: requestedGainBits.load(ordering: .relaxed)) == appliedGain
        if samples.isIdle, fonts.isIdle, limiter.gain == 1, gainSettled {
            // Nothing sounds and nothing is changing: the block is silence.
            output.update(repeating: 0, count: count * configuration.channels)
            voicesInUse.store(0, ordering: .relaxed)
            position.store(blockStart + Int64(count), ordering: .releasing)
            return
        }
        mixLeft.update(repeating: 0, count: count)
        mixRight.update(repeating: 0, count: count)
        samples.render(mixLeft: mixLeft, mixRight: mixRight, count: count)
        fonts.render(mixLeft: mixLeft, mixRight: mixRight, count: count)
        applyMasterGain(count: count)
        limiter.process(left: mixLeft, right: mixRight, count: count)
        if configuration.channels == 2 {
            for frame in 0..<count {
                output[2 * frame] = mixLeft[frame]
                output[2 * frame + 1] = mixRight[frame]
            }
        } else {
            for frame in 0..<count { output[frame] = (mixLeft[frame] + mixRight[frame]) * 0.5 }
        }
        voicesInUse.store(samples.activeCount + fonts.activeCount, ordering: .relaxed)
        position.store(blockStart + Int64(count), ordering: .releasing)
    }

    /// Takes every command stamped before `blockEnd` off the ring and out of `playNow`'s list, in frame order (the
    /// ring's first on a tie), and hands it to the pool it concerns, with its offset in the block (0 when it is
    /// late); drops voice starts from the cutoff on.
    private func drainCommands(blockStart: SampleTime, blockEnd: SampleTime) {
        let cutoff = commandCutoff.load(ordering: .acquiring)
        var taken = 0
        defer {
            if taken > 0 {
                for index in taken..<immediateCount { immediate[index - taken] = immediate[index] }
                immediateCount -= taken
            }
        }
        // The font pool's command list holds as many commands as the ring: a producer pushing while this drains
        // cannot overflow it (what does not fit waits for the next block).
        while fonts.canQueue {
            let command: MixerCommand
            let own = taken < immediateCount && immediate[taken].frame < blockEnd ? immediate[taken] : nil
            if let next = commands.peek(), next.frame < blockEnd, own.map({ next.frame <= $0.frame }) ?? true {
                commands.removeFirst()
                command = next
            } else if let own {
                taken += 1
                command = own
            } else {
                break
            }
            let dropped = command.frame >= cutoff || command.frame < startFloor
            if command.kind == .startVoice || command.kind == .startFontVoice, dropped { continue }
            if command.kind == .midi, command.midi.isNoteOn, dropped { continue }
            let offset: Int
            if command.frame < blockStart {
                // A fade-out is asked for "now" (a stop, Ctrl-C) at the position last read: never late.
                if command.kind != .fadeOutAll { lateEvents.add(1, ordering: .relaxed) }
                offset = 0
            } else {
                offset = Int(command.frame - blockStart)
            }
            switch command.kind {
            case .startVoice: samples.start(command, offset: offset)
            case .fadeOutAll:
                samples.fadeOutAll()
                fonts.queue(command, offset: offset)
            case .releaseVoices:
                samples.releaseVoices(tag: command.tag, offset: offset)
                fonts.queue(command, offset: offset)
            case .setMasterGain: requestedGainBits.store(command.gain.bitPattern, ordering: .relaxed)
            case .startFontVoice, .channelControl: fonts.queue(command, offset: offset)
            case .midi: midiOut.append(command.midi, at: blockStart + SampleTime(offset))
            }
        }
    }

    /// Scales the mix by the master gain, ramping linearly across the block to a newly requested value.
    private func applyMasterGain(count: Int) {
        let target = Float(bitPattern: requestedGainBits.load(ordering: .relaxed))
        let start = appliedGain
        if start == target {
            if target == 1 { return }
            for frame in 0..<count {
                mixLeft[frame] *= target
                mixRight[frame] *= target
            }
            return
        }
        let step = (target - start) / Float(count)
        for frame in 0..<(count - 1) {
            let gain = start + step * Float(frame + 1)
            mixLeft[frame] *= gain
            mixRight[frame] *= gain
        }
        mixLeft[count - 1] *= target
        mixRight[count - 1] *= target
        appliedGain = target
    }
}
