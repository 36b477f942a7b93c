import Foundation

/// A tmpfs of a few kilobytes, mounted for one test and unmounted when it ends: a disk that really fills up.
///
/// Mounting needs root (the CI runs as root); elsewhere `SmallDisk.canMount` is false and the tests that need one are
/// skipped with that said.
public final class SmallDisk {
    /// The mount point.
    public let path: String

    /// Mounts a tmpfs of `kilobytes` (rounded up to whole 4 KiB pages by the kernel).
    /// - Parameter free: when given, a file named `filler` takes all but this many bytes of the space.
    /// - Returns: nil when mounting is not permitted.
    public init?(kilobytes: Int, free: Int? = nil) {
        path = NSTemporaryDirectory() + "metronome-small-disk-\(UUID().uuidString)"
        guard mkdir(path, 0o755) == 0 else { return nil }
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(kilobytes)k") == 0 else {
            rmdir(path)
            return nil
        }
        if let free {
            // deinit unmounts (the instance is whole by now).
            guard FileManager.default.createFile(atPath: file("filler"), contents: Data(count: kilobytes * 1024 - free))
            else { return nil }
        }
    }

    deinit {
        umount2(path, Int32(MNT_DETACH))
        rmdir(path)
    }

    /// A path on the disk.
    public func file(_ name: String) -> String { path + "/" + name }

    /// The names of the files on the disk, sorted (hidden temporary files included).
    public var contents: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path).sorted()) ?? [] }

    /// Whether this process may mount a tmpfs (tried once).
    public static let canMount: Bool = SmallDisk(kilobytes: 4) != nil
}
