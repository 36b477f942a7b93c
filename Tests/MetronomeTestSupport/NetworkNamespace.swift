import Foundation

/// A network namespace of its own for a test that enables Ableton Link: Link finds peers by IPv4 multicast on every
/// interface that is up, so no test may enable it in the machine's own namespace. This one has only loopback, up,
/// with a multicast route on it (Link's 224.76.78.75), and is deleted when the value goes. Needs root (`ip netns`).
public final class NetworkNamespace {
    /// The namespace's name (`ip netns exec NAME …`).
    public let name: String

    /// Creates the namespace, brings loopback up, routes multicast to it, and checks that loopback is its only
    /// interface.
    public init() throws {
        name = "metronome-test-\(getpid())-\(UUID().uuidString.prefix(6))"
        try Self.ip(["netns", "add", name])
        do {
            try Self.ip(["-n", name, "link", "set", "lo", "up"])
            try Self.ip(["-n", name, "route", "add", "224.0.0.0/4", "dev", "lo"])
            guard try interfaces() == ["lo"] else { throw NamespaceError.unexpectedInterfaces(try interfaces()) }
        } catch {
            _ = try? Self.ip(["netns", "delete", name])
            throw error
        }
    }

    deinit { _ = try? Self.ip(["netns", "delete", name]) }

    /// The names of the namespace's interfaces, as `ip -o link show` lists them.
    public func interfaces() throws -> [String] {
        try Self.ip(["-n", name, "-o", "link", "show"]).standardOutput.split(separator: "\n").compactMap { line in
            line.split(separator: ":").dropFirst().first.map { String($0.trimmingCharacters(in: .whitespaces)) }
        }
    }

    /// Starts a program inside the namespace.
    public func start(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws
        -> ChildProcess
    {
        try ChildProcess(Self.ipPath, ["netns", "exec", name, path] + arguments, environment: environment)
    }

    /// Where Debian's iproute2 puts `ip`.
    public static let ipPath = "/usr/sbin/ip"

    @discardableResult
    static func ip(_ arguments: [String]) throws -> CommandResult {
        let result = try ChildProcess(ipPath, arguments).wait()
        guard result.status == 0 else {
            throw NamespaceError.failed("ip \(arguments.joined(separator: " ")): \(result.standardError)")
        }
        return result
    }

    /// Why a namespace could not be made.
    public enum NamespaceError: Error, CustomStringConvertible {
        case failed(String)
        case unexpectedInterfaces([String])

        public var description: String {
            switch self {
            case .failed(let message): message
            case .unexpectedInterfaces(let names): "the namespace has interfaces \(names), not only lo"
            }
        }
    }
}
