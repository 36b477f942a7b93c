import MetronomeFiles
import MetronomeModel
import MetronomeTestSupport
import Testing

/// Renders onto a tmpfs that really fills up (mounting needs root, as on the CI; elsewhere these are skipped).
@Suite(
    "A full disk", .serialized,
    .enabled(
        if: SmallDisk.canMount,
        "mounting a tmpfs (mount -t tmpfs) is not permitted here: it needs root (CAP_SYS_ADMIN), as on the CI"))
struct DiskFullTests {
    @Test(
        "A WAV or AIFF render larger than the free space is refused before it starts: exit 73, its size and the space free in one line, nothing written",
        arguments: [("wav", "230.5 MB"), ("aiff", "230.5 MB")])
    func refusedBeforeStarting(format: String, size: String) throws {
        let disk = try #require(SmallDisk(kilobytes: 256))
        let path = disk.file("take.\(format)")
        let result = try CommandRunner.run(["--bpm", "120", "--duration", "600", "--quiet", "-o", path])
        #expect(result.status == 73)
        #expect(
            result.standardError
                == "metronome: error: --output \(path): this render is \(size); the disk there has 262.1 kB free; "
                + "render less, or pass --force to try\n")
        #expect(disk.contents == [])
    }

    @Test(
        "A render that fills the disk says so in one line, exit 74, and leaves no file (WAV with --force)",
        arguments: [["wav", "--force"], ["flac"], ["ogg"]])
    func fillsWhileRendering(format: [String]) throws {
        let disk = try #require(SmallDisk(kilobytes: 256))
        let path = disk.file("take.\(format[0])")
        let result = try CommandRunner.run(
            ["--bpm", "120", "--duration", "600", "--quiet", "-o", path] + format.dropFirst())
        #expect(result.status == 74)
        #expect(
            result.standardError == "metronome: error: \(path): write failed: the disk is full; no file was written\n")
        #expect(disk.contents == [])
    }

    @Test(
        "A disk with no room for the header (or a MIDI export) is the same failure, exit 74 (WAV with --force)",
        arguments: ["wav", "flac", "ogg", "mid"])
    func fullFromTheStart(format: String) throws {
        let disk = try #require(SmallDisk(kilobytes: 64, free: 0))
        let path = disk.file("take.\(format)")
        let result = try CommandRunner.run(
            ["--bars", "1", "--quiet", "-o", path] + (format == "wav" ? ["--force"] : []))
        #expect(result.status == 74)
        #expect(
            result.standardError == "metronome: error: \(path): write failed: the disk is full; no file was written\n")
        #expect(disk.contents == ["filler"])
    }

    @Test(
        "Ogg and FLAC data flushed only when the file is closed: libsndfile's close reports success; the writer does not",
        arguments: [(AudioContainer.ogg, AudioSampleType.vorbis, 9600), (.flac, .pcm24, 1920)])
    func failsOnlyAtTheFinalFlush(container: AudioContainer, sampleType: AudioSampleType, frames: Int) throws {
        // 8 KiB free: every frame is accepted (the encoder holds the last pages or block), and the close cannot write
        // them (libsndfile 1.2.0's sf_close returns 0 here, measured).
        let disk = try #require(SmallDisk(kilobytes: 64, free: 8192))
        let path = disk.file("take.\(container.rawValue)")
        let writer = try AudioFileWriter(
            path: path, container: container, sampleType: sampleType, channels: 2, sampleRate: .standard)
        var random = SplitMix(seed: 12)
        let noise = (0..<960).map { _ in Float.random(in: -1...1, using: &random) }
        for _ in 0..<(frames / 480) {
            try writer.write(noise, frameCount: 480)
        }
        #expect(throws: AudioFileError.diskFull(path: path)) { try writer.finish() }
        #expect(disk.contents == ["filler"])
    }
}
