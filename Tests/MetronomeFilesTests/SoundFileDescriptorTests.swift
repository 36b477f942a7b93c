import Glibc
import Testing

@testable import MetronomeFiles

@Suite("The virtual I/O under every render")
struct SoundFileDescriptorTests {
    @Test("Reads and writes go through whole; a failing read is recorded like a failing write and ends all I/O")
    func recordsFailuresOfEveryCallback() throws {
        let folder = try ScratchDirectory()
        let path = folder.file("take.partial")
        let file = try SoundFileDescriptor(creating: path, for: folder.file("take.wav"))
        let user = Unmanaged.passUnretained(file).toOpaque()
        let callbacks = SoundFileDescriptor.callbacks
        var bytes: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        #expect(callbacks.write(&bytes, 8, user) == 8)
        #expect(callbacks.get_filelen(user) == 8)
        #expect(callbacks.tell(user) == 8)
        #expect(callbacks.seek(2, SEEK_SET, user) == 2)
        var read = [UInt8](repeating: 0, count: 16)
        // Asked for more than is left: what is there, then the end of the file (not a failure).
        #expect(callbacks.read(&read, 16, user) == 6)
        #expect(read[0..<6] == [3, 4, 5, 6, 7, 8])
        #expect(callbacks.read(&read, 16, user) == 0)
        #expect(file.failure == 0)
        // A descriptor that is no longer open: the read fails with EBADF, which is kept.
        file.close()
        #expect(callbacks.read(&read, 16, user) == 0)
        #expect(file.failure == EBADF)
        // A write after a failure writes nothing, and is not reported to libsndfile (see SoundFileDescriptor).
        #expect(callbacks.write(&bytes, 8, user) == 8)
        #expect(callbacks.get_filelen(user) == -1)
        #expect(file.failure == EBADF)
        unlink(path)
    }

    @Test("A failing write, file-length query and tell are recorded too; the write is not reported to libsndfile")
    func recordsFailingQueries() throws {
        let folder = try ScratchDirectory()
        let path = folder.file("take.partial")
        let callbacks = SoundFileDescriptor.callbacks
        let writeFile = try SoundFileDescriptor(creating: path, for: path)
        writeFile.close()
        var bytes: [UInt8] = [1, 2, 3]
        #expect(callbacks.write(&bytes, 3, Unmanaged.passUnretained(writeFile).toOpaque()) == 3)
        #expect(writeFile.failure == EBADF)
        let lengthFile = try SoundFileDescriptor(creating: path, for: path)
        lengthFile.close()
        #expect(callbacks.get_filelen(Unmanaged.passUnretained(lengthFile).toOpaque()) == -1)
        #expect(lengthFile.failure == EBADF)
        let tellFile = try SoundFileDescriptor(creating: path, for: path)
        tellFile.close()
        #expect(callbacks.tell(Unmanaged.passUnretained(tellFile).toOpaque()) == -1)
        #expect(tellFile.failure == EBADF)
        unlink(path)
    }
}
