/// A SoundFont's format version (the INFO list's `ifil`): 2.x for SoundFont 2, 3.x for SF3 (Ogg Vorbis samples).
public struct SoundFontVersion: Sendable, Hashable, CustomStringConvertible {
    /// 2 or 3.
    public let major: Int
    /// 1 for 2.01, 4 for 2.04.
    public let minor: Int

    /// A version number.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// `2.04`: the minor version in two digits, as the specification writes it.
    public var description: String { "\(major).\(minor < 10 ? "0" : "")\(minor)" }
}
