import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

@Suite("-o through a symbolic link")
struct SymlinkOutputTests {
    @Test("A link stays a link; the file it points to (through a chain, or not there yet) gets the render")
    func writesThrough() throws {
        let scratch = try Scratch()
        let target = scratch.file("take.wav")
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        let link = scratch.file("link.wav")
        let chain = scratch.file("chain.wav")
        #expect(symlink("take.wav", link) == 0)
        #expect(symlink("link.wav", chain) == 0)
        let result = try CommandRunner.run(["--bars", "1", "--quiet", "--channels", "1", "-o", chain])
        #expect(result.status == 0)
        #expect(result.standardError == "")
        var status = stat()
        #expect(lstat(link, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK)
        #expect(lstat(chain, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK)
        #expect(try AudioFileReader.read(path: target).frameCount == 96_000)
        #expect(scratch.contents.sorted() == ["chain.wav", "link.wav", "take.wav"])

        let dangling = scratch.file("next.wav")
        #expect(symlink("new.wav", dangling) == 0)
        #expect(try CommandRunner.run(["--bars", "1", "--quiet", "-o", dangling]).status == 0)
        #expect(try AudioFileReader.read(path: scratch.file("new.wav")).frameCount == 96_000)
    }

    @Test("A loop of links is exit 73, one line, nothing written")
    func loop() throws {
        let scratch = try Scratch()
        let a = scratch.file("a.wav")
        let b = scratch.file("b.wav")
        #expect(symlink("b.wav", a) == 0)
        #expect(symlink("a.wav", b) == 0)
        let result = try CommandRunner.run(["--bars", "1", "--quiet", "-o", a])
        #expect(result.status == 73)
        #expect(result.standardError.hasSuffix("too many levels of symbolic links\n"))
        #expect(result.standardError.components(separatedBy: "\n").count == 2)
        #expect(scratch.contents.sorted() == ["a.wav", "b.wav"])
    }
}
