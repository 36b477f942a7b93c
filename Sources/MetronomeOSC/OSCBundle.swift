/// An OSC bundle: a time tag and elements (messages or bundles) that apply together at that time.
///
/// OSC 1.0 asks that a nested bundle's time tag be no earlier than its enclosing bundle's; the codec carries tags as
/// given and leaves that rule to the receiver. Bundles nest at most ``OSCPacket/maximumBundleDepth`` deep.
public struct OSCBundle: Sendable, Equatable {
    /// When the elements apply; ``OSCTimeTag/immediately`` means on arrival.
    public var timeTag: OSCTimeTag
    /// The elements, in order: messages and nested bundles.
    public var elements: [OSCPacket]

    /// A bundle.
    ///
    /// - Parameters:
    ///   - timeTag: when the elements apply.
    ///   - elements: messages and nested bundles, in order.
    public init(timeTag: OSCTimeTag = .immediately, _ elements: [OSCPacket]) {
        self.timeTag = timeTag
        self.elements = elements
    }
}
