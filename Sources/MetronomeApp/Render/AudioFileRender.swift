import MetronomeEngine
import MetronomeFiles
import MetronomeLive
import MetronomeModel

/// Renders a plan offline into an audio file, as fast as possible: into a temporary file that is renamed into place
/// only when every frame has been written, the last 5 ms faded so that a render ending while notes sound ends faded,
/// not cut. The render runs the very session live playback would, on a virtual clock.
///
/// Threads: `run` blocks its calling thread; `shouldContinue` is called on it after every block.
public struct AudioFileRender {
    /// What to render; its `frameCount` is the length.
    public let plan: ClickPlan
    /// The file to write.
    public let path: String
    /// The container (from the name's extension, `AudioContainer(path:)`).
    public let container: AudioContainer
    /// The sample type.
    public let sampleType: AudioSampleType

    /// The fade at the end: 5 ms.
    public static let fadeOut: Duration = .milliseconds(5)

    /// A render of a plan into a file.
    /// - Parameters:
    ///   - plan: what to render (it must have a `frameCount`).
    ///   - path: the file to write.
    ///   - container: the file's container.
    ///   - sampleType: the file's sample type (one the container holds).
    public init(plan: ClickPlan, path: String, container: AudioContainer, sampleType: AudioSampleType) {
        self.plan = plan
        self.path = path
        self.container = container
        self.sampleType = sampleType
    }

    /// The file's size in bytes, or nil when it overflows 64 bits: AIFF keeps its sizes in 32 bits, so a render that
    /// would outgrow 4 GB must be refused before anything is written (WAV becomes RF64 past 4 GB; FLAC and Ogg have
    /// no such limit).
    /// - Parameter frameCount: frames to render.
    public func sampleBytes(frameCount: SampleTime) -> Int64? {
        let bytesPerSample: Int64 =
            switch sampleType {
            case .pcm16: 2
            case .pcm24: 3
            case .float, .vorbis: 4
            }
        let (bytes, overflow) = frameCount.multipliedReportingOverflow(by: bytesPerSample * Int64(plan.channels))
        return overflow ? nil : bytes
    }

    /// The most sample bytes an AIFF file can hold (4 GB less room for its header).
    public static let aiffLimit = Int64(UInt32.max) - 1024

    /// Renders the plan into the file.
    /// - Parameter shouldContinue: called after every block with the frames written so far; false stops the render
    ///   and removes the temporary file.
    /// - Returns: true when every frame was written and the file is in place; false when `shouldContinue` stopped it
    ///   (nothing was written).
    /// - Throws: `RenderError`: no length, the file cannot be created, the plan cannot start, or writing failed.
    public func run(shouldContinue: (SampleTime) -> Bool = { _ in true }) throws(RenderError) -> Bool {
        guard let frameCount = plan.frameCount else { throw .endless }
        if container == .aiff {
            let bytes = sampleBytes(frameCount: frameCount)
            if bytes.map({ $0 > AudioFileRender.aiffLimit }) ?? true { throw .tooLargeForAIFF(bytes: bytes) }
        }
        let configuration: MixerConfiguration
        do { configuration = try plan.mixerConfiguration() } catch { throw .plan(.mixer(error)) }
        let writer: AudioFileWriter
        do {
            writer = try AudioFileWriter(
                path: path, container: container, sampleType: sampleType, channels: plan.channels,
                sampleRate: plan.sampleRate)
        } catch {
            throw .file(error)
        }
        let session: Session
        do { session = try plan.session(configuration: configuration) } catch {
            writer.abandon()
            throw .plan(error)
        }
        var stopped = false
        do {
            let fade = Int(plan.sampleRate.frames(in: AudioFileRender.fadeOut))
            try session.render(frameCount: frameCount, to: writer, fadeOutFrames: fade) { done in
                stopped = !shouldContinue(done)
                return !stopped
            }
        } catch {
            writer.abandon()
            throw .writing(String(describing: error))
        }
        if stopped {
            writer.abandon()
            return false
        }
        do { try writer.finish() } catch { throw .file(error) }
        return true
    }
}

/// Why a render failed.
public enum RenderError: Error, Sendable, CustomStringConvertible {
    /// The plan has no length (an endless click).
    case endless
    /// The render would outgrow what an AIFF file holds: its sample bytes, or nil when beyond 64 bits.
    case tooLargeForAIFF(bytes: Int64?)
    /// The file could not be created, or written, or finished.
    case file(AudioFileError)
    /// The plan's session could not be made.
    case plan(PlanError)
    /// Writing a block failed: the reason.
    case writing(String)

    /// The reason, without option names.
    public var description: String {
        switch self {
        case .endless: "the render has no length"
        case .tooLargeForAIFF(let bytes):
            "this render is \(bytes.map { String(Double($0 / 10_000_000) / 100) } ?? "far more than 4") GB, more "
                + "than an AIFF file can hold (4 GB)"
        case .file(let error): error.description
        case .plan(let error): error.description
        case .writing(let reason): reason
        }
    }
}
