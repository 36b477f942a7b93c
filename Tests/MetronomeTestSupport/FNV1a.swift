import Foundation

/// FNV-1a over bytes, 64 bits: the fingerprint `RenderFingerprintTests` records of every render. Here, in an optimized
/// module, because the test targets are compiled without optimization and hashing an hour of samples byte by byte
/// there cost seconds of the pure lane.
public struct FNV1a: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func add(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x100_0000_01b3
        }
    }

    public mutating func add(_ data: Data) {
        data.withUnsafeBytes { add($0) }
    }

    /// Each sample's bits, little-endian, in order.
    public mutating func add(samples: [Float]) {
        for sample in samples {
            withUnsafeBytes(of: sample.bitPattern.littleEndian) { add($0) }
        }
    }

    /// The value's little-endian bytes.
    public mutating func add(_ integer: UInt64) {
        withUnsafeBytes(of: integer.littleEndian) { add($0) }
    }
}
