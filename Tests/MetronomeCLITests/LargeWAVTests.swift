import Foundation
import MetronomeTestSupport
import Testing

@Suite("WAV past 4 GB")
struct LargeWAVTests {
    /// The first 44 bytes of a file.
    private func header(_ path: String) throws -> [UInt8] {
        let handle = try #require(FileHandle(forReadingAtPath: path))
        defer { try? handle.close() }
        return Array(handle.readData(ofLength: 44))
    }

    private func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    @Test("A render under 4 GB is plain WAV; 6 h 15 min of mono float (4.32 GB) is RF64 with the true sizes")
    func rf64() throws {
        let scratch = try Scratch()
        let small = scratch.file("small.wav")
        #expect(try CommandRunner.run(["--bars", "1", "--quiet", "-o", small]).status == 0)
        let riffTag: [UInt8] = Array("RIFF".utf8)
        #expect(Array(try header(small).prefix(4)) == riffTag)

        let big = scratch.file("big.wav")
        let result = try CommandRunner.run(["--duration", "22500", "--channels", "1", "--quiet", "-o", big])
        defer { unlink(big) }
        #expect(result.status == 0)
        let bytes = try header(big)
        let rf64Tag: [UInt8] = Array("RF64".utf8)
        #expect(Array(bytes[0..<4]) == rf64Tag)
        let waveAndDS64Tags: [UInt8] = Array("WAVEds64".utf8)
        #expect(Array(bytes[8..<16]) == waveAndDS64Tags)
        // ds64: RIFF size, data size, sample count, each 64 bits (the 32-bit fields hold 0xFFFFFFFF).
        #expect(littleEndian(bytes[20..<28]) == 4_320_000_104)
        #expect(littleEndian(bytes[28..<36]) == 4_320_000_000)
        #expect(littleEndian(bytes[36..<44]) == 1_080_000_000)
        var status = stat()
        let statResult: Int32 = stat(big, &status)
        #expect(statResult == 0 && status.st_size == 4_320_000_112)
    }

    @Test("An AIFF render past 4 GB is refused before anything is written: one line, exit 64")
    func aiffLimit() throws {
        let scratch = try Scratch()
        let path = scratch.file("big.aiff")
        let result = try CommandRunner.run(["--duration", "22500", "-o", path])
        #expect(result.status == 64)
        #expect(
            result.standardError
                == "metronome: error: --output \(path): this render is 8.64 GB, more than an AIFF file can hold (4 GB); write .wav (RF64 past 4 GB), .flac or .ogg\n"
        )
        #expect(scratch.contents.isEmpty)
    }
}
