import Glibc
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
    /// Whether a WAV or AIFF render that would not fit the free space of its folder's file system is refused before
    /// anything is written (`RenderError.noSpace`); true by default, `--force` turns it off.
    public var checksFreeSpace = true

    /// The fade at the end: 5 ms (`ClickPlan.renderFadeOut`, which a practice timer's render length counts).
    public static let fadeOut: Duration = ClickPlan.renderFadeOut

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

    /// Room for a WAV or AIFF header and its chunks (an RF64 header is under 100 bytes): a 64 KiB allowance.
    static let headerAllowance: Int64 = 65_536

    /// The file's size in bytes for a container whose size the sound does not change (WAV, AIFF: its samples and a
    /// header allowance), or nil for FLAC and Ogg, which compress what they hold (a click is mostly silence).
    public func knownFileBytes(frameCount: SampleTime) -> Int64? {
        guard container == .wav || container == .aiff else { return nil }
        return sampleBytes(frameCount: frameCount).map { $0 + AudioFileRender.headerAllowance } ?? .max
    }

    /// The bytes free to an ordinary user in the file system holding `path`'s folder (`statvfs`), or nil when it
    /// cannot be read.
    public static func freeBytes(near path: String) -> Int64? {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        var status = statvfs()
        guard statvfs(folder, &status) == 0 else { return nil }
        let (bytes, overflow) = Int64(status.f_bavail).multipliedReportingOverflow(by: Int64(status.f_frsize))
        return overflow ? .max : bytes
    }

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
        if checksFreeSpace, let needed = knownFileBytes(frameCount: frameCount),
            let free = AudioFileRender.freeBytes(near: path), needed > free
        {
            throw .noSpace(needed: needed, free: free)
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
    /// A WAV or AIFF render would not fit: the file's bytes and the bytes free where it goes.
    case noSpace(needed: Int64, free: Int64)

    /// "768.0 GB", "73.1 MB", "512 bytes": a size as a person reads it, in powers of 1000.
    public static func size(_ bytes: Int64) -> String {
        let units: [(Double, String)] = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")]
        for (scale, name) in units where Double(bytes) >= scale {
            return "\((Double(bytes) / scale * 10).rounded() / 10) \(name)"
        }
        return "\(bytes) bytes"
    }

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
        case .noSpace(let needed, let free):
            "this render is \(RenderError.size(needed)); the disk there has \(RenderError.size(free)) free"
        }
    }
}
