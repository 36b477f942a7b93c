/// The one binary search the timeline uses: in keys sorted ascending, the last index whose key is at or before a
/// value (the section holding a bar or a position, the segment holding a position or a frame, the beat holding a
/// time).
enum SortedSearch {
    /// The last index in `0..<count` whose key is `<= value`, or 0 when none is (callers check the lower bound).
    /// - Complexity: O(log count).
    static func lastIndex<Key: Comparable>(atOrBefore value: Key, count: Int, key: (Int) -> Key) -> Int {
        var low = 0
        var high = count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if key(middle) <= value { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
