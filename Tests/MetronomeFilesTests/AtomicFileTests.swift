import Foundation
import Glibc
import Testing

@testable import MetronomeFiles

/// `AtomicFile`: the temporary file beside the destination (through symbolic links), the rename into place, and the
/// destination left as it was whenever something fails.
@Suite("Atomic files")
struct AtomicFileTests {
    @Test("The temporary file is .NAME.partial-PID beside the file the links lead to; nothing is created yet")
    func destinationNames() throws {
        let scratch = try ScratchDirectory()
        let plain = try AtomicFile.Destination(path: scratch.file("out.mid"))
        #expect(plain.path == scratch.file("out.mid"))
        #expect(plain.resolvedPath == scratch.file("out.mid"))
        #expect(plain.temporaryPath == scratch.file(".out.mid.partial-\(getpid())"))
        let relative = try AtomicFile.Destination(path: "out.mid")
        #expect(relative.temporaryPath == ".out.mid.partial-\(getpid())")
        try FileManager.default.createDirectory(atPath: scratch.file("sub"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: scratch.file("link.mid"), withDestinationPath: "sub/a.mid")
        let linked = try AtomicFile.Destination(path: scratch.file("link.mid"))
        #expect(linked.path == scratch.file("link.mid"))
        #expect(linked.resolvedPath == scratch.file("sub/a.mid"))
        #expect(linked.temporaryPath == scratch.file("sub/.a.mid.partial-\(getpid())"))
        #expect(scratch.contents == ["link.mid", "sub"])
        #expect(throws: AudioFileError.cannotCreate(path: scratch.path, reason: "it is a directory")) {
            try AtomicFile.Destination(path: scratch.path)
        }
    }

    @Test("write replaces the file the link leads to, keeps the link, and leaves no temporary file")
    func writeThroughLink() throws {
        let scratch = try ScratchDirectory()
        try FileManager.default.createSymbolicLink(atPath: scratch.file("link.mid"), withDestinationPath: "a.mid")
        try AtomicFile.write([1, 2, 3], to: scratch.file("link.mid"))
        try AtomicFile.write([4, 5], to: scratch.file("link.mid"))
        #expect(scratch.contents == ["a.mid", "link.mid"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.file("link.mid")) == "a.mid")
        #expect(FileManager.default.contents(atPath: scratch.file("a.mid")) == Data([4, 5]))
    }

    @Test("A destination that cannot be created is cannotCreate, with the system's reason, and leaves nothing")
    func cannotCreate() throws {
        let scratch = try ScratchDirectory()
        let missing = scratch.file("none/out.mid")
        #expect(throws: AudioFileError.cannotCreate(path: missing, reason: "No such file or directory")) {
            try AtomicFile.write([1], to: missing)
        }
        #expect(throws: AudioFileError.cannotCreate(path: scratch.path, reason: "it is a directory")) {
            try AtomicFile.write([1], to: scratch.path)
        }
        #expect(scratch.contents == [])
    }

    @Test("A failed rename is writeFailed with the system's reason; the temporary file is removed")
    func failedCommit() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("out.mid")
        let destination = try AtomicFile.Destination(path: path)
        #expect(FileManager.default.createFile(atPath: destination.temporaryPath, contents: Data([1])))
        // A directory holding a file took the destination's place after it was checked: rename(2) cannot replace it.
        try FileManager.default.createDirectory(
            atPath: scratch.file("out.mid/inside"), withIntermediateDirectories: true)
        #expect(throws: AudioFileError.writeFailed(path: path, reason: "Is a directory")) { try destination.commit() }
        #expect(scratch.contents == ["out.mid"])
    }

    @Test("commit puts the temporary file in place; discard removes it and leaves the destination as it was")
    func commitAndDiscard() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("out.mid")
        #expect(FileManager.default.createFile(atPath: path, contents: Data([9])))
        let first = try AtomicFile.Destination(path: path)
        #expect(FileManager.default.createFile(atPath: first.temporaryPath, contents: Data([1, 2])))
        first.discard()
        #expect(scratch.contents == ["out.mid"])
        #expect(FileManager.default.contents(atPath: path) == Data([9]))
        let second = try AtomicFile.Destination(path: path)
        #expect(FileManager.default.createFile(atPath: second.temporaryPath, contents: Data([1, 2])))
        try second.commit()
        #expect(scratch.contents == ["out.mid"])
        #expect(FileManager.default.contents(atPath: path) == Data([1, 2]))
    }
}
