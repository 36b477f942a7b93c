import Glibc
import MetronomeSoundFont

/// A file mapped read-only into memory, unmapped when the last `SoundFont` using it goes: the pages a voice never
/// touches are never read.
final class SoundFontMapping {
    let bytes: UnsafeRawBufferPointer

    /// Maps `count` bytes of the open file `descriptor` (at least one).
    /// - Returns: `nil` when mmap fails (errno says why).
    init?(descriptor: Int32, count: Int) {
        let address = mmap(nil, count, PROT_READ, MAP_PRIVATE, descriptor, 0)
        guard let address, address != MAP_FAILED else { return nil }
        bytes = UnsafeRawBufferPointer(start: address, count: count)
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count) }
}
