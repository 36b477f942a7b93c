import Foundation
import MetronomeOSC

extension OSCSocket {
    /// Sends `/metronome/query` to a running `metronome serve` and returns the key/value pairs of its
    /// `/metronome/state` reply (other datagrams are passed over); empty when no reply came within `seconds`.
    public func metronomeState(from service: OSCEndpoint, seconds: Double = 2) -> [String: OSCArgument] {
        _ = send(.message(OSCMessage("/metronome/query")), to: service)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard let datagram = receive(timeoutMilliseconds: 100),
                case .message(let message)? = try? OSCPacket(decoding: datagram.bytes),
                message.addressPattern == "/metronome/state"
            else { continue }
            var pairs: [String: OSCArgument] = [:]
            for index in stride(from: 0, to: message.arguments.count - 1, by: 2) {
                if case .string(let key) = message.arguments[index] { pairs[key] = message.arguments[index + 1] }
            }
            return pairs
        }
        return [:]
    }
}
