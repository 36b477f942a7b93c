// OSC packets: any datagram, decoded as `metronome serve` decodes it (OSCPacket(decoding:)). A refusal must be an
// OSCError with a printable message. A decoded packet that encodes must decode again to the same bytes; every
// message's address pattern is parsed and matched against the service's addresses, and every argument read the
// lenient way the service reads numbers.
import FuzzSupport
import MetronomeOSC

/// Addresses of the service's two address spaces, and a long one for the matcher.
let addresses = ["/metronome/tempo", "/metronome/play", "/klick/simple/set_tempo", "/a/b/c/d/e/f/g/h", "/"]

fuzz { bytes in
    let packet: OSCPacket
    do throws(OSCError) { packet = try OSCPacket(decoding: bytes) } catch {
        _ = error.description
        return
    }
    do throws(OSCError) {
        let encoded = try packet.encoded()
        let again = try OSCPacket(decoding: encoded).encoded()
        require(again == encoded, "a packet re-encodes differently: \(encoded) then \(again)")
    } catch {
        _ = error.description
    }
    var pending = [packet]
    while let next = pending.popLast() {
        switch next {
        case .bundle(let bundle): pending += bundle.elements
        case .message(let message):
            for argument in message.arguments { _ = (argument.asFloat, argument.asInt, argument.description) }
            do throws(OSCError) {
                let pattern = try OSCAddressPattern(message.addressPattern)
                for address in addresses + [message.addressPattern] { _ = pattern.matches(address) }
            } catch {
                _ = error.description
            }
        }
    }
}
