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
        name = Self.freshName()
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

    /// A namespace with loopback down and no other interface yet (`pair()` adds one end of a veth).
    private init(bare name: String) throws {
        self.name = name
        try Self.ip(["netns", "add", name])
    }

    private static func freshName() -> String { "metronome-test-\(getpid())-\(UUID().uuidString.prefix(6))" }

    /// Two namespaces joined by a veth pair, standing for two machines on one network: each has loopback and its
    /// end of the pair (`veth0`, 10.254.0.1/24 and 10.254.0.2/24), both up, multicast routed to the pair; checked
    /// to have those two interfaces and no other.
    public static func pair() throws -> (NetworkNamespace, NetworkNamespace) {
        let left = try NetworkNamespace(bare: freshName())
        let right = try NetworkNamespace(bare: freshName())
        try ip(["link", "add", "veth0", "netns", left.name, "type", "veth", "peer", "name", "veth0", "netns", right.name])
        for (index, side) in [left, right].enumerated() {
            try ip(["-n", side.name, "addr", "add", "10.254.0.\(index + 1)/24", "dev", "veth0"])
            try ip(["-n", side.name, "link", "set", "lo", "up"])
            try ip(["-n", side.name, "link", "set", "veth0", "up"])
            try ip(["-n", side.name, "route", "add", "224.0.0.0/4", "dev", "veth0"])
            guard try side.interfaces() == ["lo", "veth0"] else {
                throw NamespaceError.unexpectedInterfaces(try side.interfaces())
            }
        }
        return (left, right)
    }

    deinit { _ = try? Self.ip(["netns", "delete", name]) }

    /// The names of the namespace's interfaces, as `ip -o link show` lists them (a veth's peer suffix `@…` cut).
    public func interfaces() throws -> [String] {
        try Self.ip(["-n", name, "-o", "link", "show"]).standardOutput.split(separator: "\n").compactMap { line in
            line.split(separator: ":").dropFirst().first.map {
                String($0.trimmingCharacters(in: .whitespaces).split(separator: "@")[0])
            }
        }
    }

    /// Takes the namespace's loopback down (the network gone away: its addresses and routes unreachable) or brings
    /// it up again with its multicast route, as `init()` made it.
    public func setLoopback(up: Bool) throws {
        try Self.ip(["-n", name, "link", "set", "lo", up ? "up" : "down"])
        // Taking an interface down drops the routes through it.
        if up { try Self.ip(["-n", name, "route", "replace", "224.0.0.0/4", "dev", "lo"]) }
    }

    /// Starts a program inside the namespace; standard input as `ChildProcess` takes it.
    public func start(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil,
        standardInput: String = "/dev/null"
    ) throws -> ChildProcess {
        try ChildProcess(
            Self.ipPath, ["netns", "exec", name, path] + arguments, environment: environment,
            standardInput: standardInput)
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
