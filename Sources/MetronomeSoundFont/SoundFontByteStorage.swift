/// A copy of a font's bytes that a `SoundFont` built from an array owns (the bytes must stay where they are for
/// as long as the font lives; an array's storage may move).
final class SoundFontByteStorage {
    let bytes: UnsafeMutableRawBufferPointer

    init(_ array: [UInt8]) {
        bytes = .allocate(byteCount: max(array.count, 1), alignment: 16)
        array.withUnsafeBytes { bytes.copyMemory(from: $0) }
    }

    deinit { bytes.deallocate() }
}
