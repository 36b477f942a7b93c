/// Renders as fast as possible on a virtual clock: the same `ClickScheduler` and `Mixer` as live playback, with the
/// mixer's frame counter advanced by the writer loop instead of a sound server. A rendered file is therefore an exact
/// witness of what live playback sends.
public final class OfflineRenderer {
    /// The mixer producing frames.
    public let mixer: Mixer
    /// The scheduler feeding it.
    public let scheduler: ClickScheduler
    /// Frames rendered per pass of the loop.
    public let blockFrames: Int

    /// Wires a scheduler to a mixer.
    /// - Precondition: both share one command ring.
    public init(mixer: Mixer, scheduler: ClickScheduler, blockFrames: Int = 1024) {
        precondition(mixer.commands === scheduler.ring, "the scheduler must feed the mixer's ring")
        self.mixer = mixer
        self.scheduler = scheduler
        self.blockFrames = blockFrames
    }

    /// Builds the whole chain (ring, mixer, scheduler) for a map.
    /// - Parameters:
    ///   - map: the tempo map; its sample rate must match the configuration's.
    ///   - clicks: the click sounds.
    ///   - configuration: mixer settings.
    ///   - endFrame: no click at or after this frame is scheduled.
    ///   - gain: linear master gain.
    ///   - layerClicks: the sounds of the map's polyrhythm layers (by default synthesized from their styles).
    public convenience init(
        map: TempoMap, clicks: ClickSet, configuration: MixerConfiguration, endFrame: SampleTime?, gain: Float = 1,
        layerClicks: [ClickStyle: ClickSet]? = nil
    ) {
        let ring = CommandRing(minimumCapacity: 4096)
        let mixer = Mixer(configuration: configuration, commands: ring, masterGain: gain)
        let scheduler = ClickScheduler(
            map: map, clicks: clicks, ring: ring, endFrame: endFrame, layerClicks: layerClicks)
        self.init(mixer: mixer, scheduler: scheduler, blockFrames: 4096)
    }

    /// Renders `frameCount` frames into `sink`.
    /// - Parameters:
    ///   - frameCount: frames to produce.
    ///   - sink: receives every block in order.
    ///   - shouldContinue: called after each block with the frames done so far; return false to stop early.
    /// - Returns: frames actually rendered.
    /// - Throws: the sink's errors.
    @discardableResult
    public func render(
        frameCount: SampleTime, to sink: AudioSink, shouldContinue: (SampleTime) -> Bool = { _ in true }
    ) throws -> SampleTime {
        let channels = mixer.configuration.channels
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * channels)
        defer { buffer.deallocate() }
        var done: SampleTime = 0
        while done < frameCount {
            let count = Int(min(SampleTime(blockFrames), frameCount - done))
            scheduler.schedule(until: mixer.framePosition + SampleTime(2 * blockFrames))
            mixer.render(into: buffer, frameCount: count)
            try sink.write(buffer, frameCount: count)
            done += SampleTime(count)
            if !shouldContinue(done) { break }
        }
        return done
    }
}
