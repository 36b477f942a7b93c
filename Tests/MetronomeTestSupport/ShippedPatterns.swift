import Foundation

/// The repository's Patterns folder, found from this file's path.
public let patternsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Patterns").path

/// The names of the `.metro` files in the Patterns folder, sorted.
public let shippedPatterns: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: patternsFolder)) ?? []
    return names.filter { $0.hasSuffix(".metro") }.sorted()
}()
