import Dispatch
import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import Synchronization

/// The follower seam's side in the session (`SessionFollower`): the list, and the commands from control routed
/// through it.
extension Session {
    /// The commands every follower left for the transport (`SessionFollower.route`), in the order they were added.
    func routed(_ commands: [TransportCommand]) -> [TransportCommand] {
        followers.withLock { $0 }.reduce(commands) { left, follower in left.isEmpty ? left : follower.route(left) }
    }

    /// Adds a follower (`SessionFollower`): from the next pass on it steers the session. Any thread.
    public func add(follower: SessionFollower) {
        followers.withLock { $0.append(follower) }
        wake()
    }

    /// Removes a follower; what it sent stays. Any thread.
    public func remove(follower: SessionFollower) {
        followers.withLock { $0.removeAll { $0 === follower } }
    }

    /// Replaces the followers that `matches` picks with `replacement` (none: removes them), where the first of them
    /// was (at the end when none). Any thread.
    package func replaceFollowers(where matches: (SessionFollower) -> Bool, with replacement: SessionFollower?) {
        queue.sync {
            followers.withLock { list in
                let index = list.firstIndex(where: matches) ?? list.count
                list.removeAll(where: matches)
                if let replacement { list.insert(replacement, at: min(index, list.count)) }
            }
        }
        wake()
    }

    /// The followers, in the order they were added. Any thread.
    package var followerList: [SessionFollower] { followers.withLock { $0 } }

    /// Runs `body` with the followers on the session's queue (where their state lives). Any thread.
    package func onFollowerQueue<T>(_ body: ([SessionFollower]) -> T) -> T {
        queue.sync { body(followers.withLock { $0 }) }
    }
}
