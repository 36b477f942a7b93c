import MetronomeApp

/// The web remote beside a live run (`LiveRun`): it stops with the run, and `--verbose` gives its counts.
extension WebRemote: LiveCompanion {
    /// `web: N page loads, …`: pages, commands, refusals and slow pages closed.
    public var reportLines: [String] {
        let counts = self.counts
        return [
            "web: \(counts.pageLoads) page loads, \(counts.pages) WebSockets, \(counts.commands) commands "
                + "(\(counts.refusedCommands) refused), \(counts.refusedRequests) requests refused "
                + "(\(counts.timedOutRequests) timed out), "
                + "\(counts.refusedConnections) of \(counts.connections + counts.refusedConnections) "
                + "connections refused, \(counts.refusedFrames) frames refused, \(counts.slowPages) slow pages "
                + "closed"
        ]
    }
}
