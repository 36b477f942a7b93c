/// An OSC message: an address pattern and its arguments.
///
/// The address pattern starts with `/`; encoding checks that (``OSCError/addressNotSlash(_:)``). Matching a
/// pattern against a server's addresses is ``OSCAddressPattern``'s job.
public struct OSCMessage: Sendable, Equatable {
    /// The address pattern, for instance `/metronome/tempo` or `/metronome/{play,stop}`.
    public var addressPattern: String
    /// The arguments, in order; their type tags make the message's type tag string.
    public var arguments: [OSCArgument]

    /// A message.
    ///
    /// - Parameters:
    ///   - addressPattern: the address pattern, starting with `/`.
    ///   - arguments: the arguments, in order.
    public init(_ addressPattern: String, _ arguments: [OSCArgument] = []) {
        self.addressPattern = addressPattern
        self.arguments = arguments
    }

    /// The type tag string as it travels: `,` then one tag per argument, for instance `,fs`.
    public var typeTags: String {
        String(decoding: [UInt8(ascii: ",")] + arguments.map(\.typeTag), as: UTF8.self)
    }
}
