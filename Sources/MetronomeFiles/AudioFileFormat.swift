import CSndFile

/// The container an output file is written in, chosen by its extension.
public enum AudioContainer: String, CaseIterable, Sendable {
    case wav
    case flac
    case ogg
    case aiff

    /// Extensions that name each container.
    public static let extensions: [String: AudioContainer] = [
        "wav": .wav, "wave": .wav, "flac": .flac, "ogg": .ogg, "oga": .ogg, "aiff": .aiff, "aif": .aiff,
    ]

    /// The container for a path's extension (case-insensitive), or nil when the extension is unknown.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        guard let container = AudioContainer.extensions[path[path.index(after: dot)...].lowercased()] else {
            return nil
        }
        self = container
    }

    /// Sample types the container can hold; the first is the default.
    public var sampleTypes: [AudioSampleType] {
        switch self {
        case .wav, .aiff: [.float, .pcm16, .pcm24]
        case .flac: [.pcm24, .pcm16]
        case .ogg: [.vorbis]
        }
    }

    /// The default sample type: 32-bit float where the container has it, 24-bit for FLAC, Vorbis for Ogg.
    public var defaultSampleType: AudioSampleType { sampleTypes[0] }

    var majorFormat: Int32 {
        switch self {
        // RF64, downgraded on close to plain WAV when the data stays under 4 GB (libsndfile's
        // SFC_RF64_AUTO_DOWNGRADE, set by the writer): a long render is never written with a wrapped RIFF size.
        case .wav: Int32(SF_FORMAT_RF64)
        case .flac: Int32(SF_FORMAT_FLAC)
        case .ogg: Int32(SF_FORMAT_OGG)
        case .aiff: Int32(SF_FORMAT_AIFF)
        }
    }
}

/// How samples are stored in an output file.
public enum AudioSampleType: String, CaseIterable, Sendable {
    /// 16-bit integer PCM.
    case pcm16
    /// 24-bit integer PCM.
    case pcm24
    /// 32-bit IEEE float.
    case float
    /// Ogg Vorbis (lossy); the only type of `.ogg` files.
    case vorbis

    var subtype: Int32 {
        switch self {
        case .pcm16: Int32(SF_FORMAT_PCM_16)
        case .pcm24: Int32(SF_FORMAT_PCM_24)
        case .float: Int32(SF_FORMAT_FLOAT)
        case .vorbis: Int32(SF_FORMAT_VORBIS)
        }
    }
}
