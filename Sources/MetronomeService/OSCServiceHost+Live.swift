import MetronomeApp
import MetronomeLive

/// The service beside a live run (`LiveRun`): each output it plays through is the one its time tags and state read,
/// it stops receiving when the run ends, and `--verbose` counts its datagrams.
extension OSCServiceHost: LiveCompanion {
    public func resume(output: any OutputBackend) { service.attach(output: output) }

    /// `OSC: N datagrams received, M dropped, L late bundles`.
    public var reportLines: [String] {
        [
            "OSC: \(service.receivedCount) datagrams received, \(service.droppedCount) dropped, "
                + "\(service.lateBundleCount) late bundles"
        ]
    }
}
