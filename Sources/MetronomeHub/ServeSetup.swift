import MetronomeApp
import MetronomeLive
import MetronomeOSC
import MetronomeService
import MetronomeWeb

/// What `serve` adds to live playback: where to listen and what the service plays notes with.
public struct ServeSetup: Sendable {
    public var endpoint: OSCEndpoint
    public var settings: ServiceSettings
    public var web: WebSetup?
    /// The set served (`serve gig.setlist`); the plan served is then its first song's.
    public var setlist: SetlistPlan?

    public init(endpoint: OSCEndpoint, settings: ServiceSettings, web: WebSetup?, setlist: SetlistPlan? = nil) {
        self.endpoint = endpoint
        self.settings = settings
        self.web = web
        self.setlist = setlist
    }
}

/// Where the web remote listens, whether a loopback address needs the token too, whether a URL with a token for
/// another machine is also drawn as a QR code (the CLI: at a terminal, not with `--quiet`), and what a page may load.
public struct WebSetup: Sendable {
    public var address: WebAddress
    public var token: Bool
    public var qrCode: Bool
    /// The patterns a page may load.
    public var patterns: WebPatterns

    public init(address: WebAddress, token: Bool, qrCode: Bool, patterns: WebPatterns) {
        self.address = address
        self.token = token
        self.qrCode = qrCode
        self.patterns = patterns
    }
}

extension WebRemote {
    /// Starts the web remote over `service` (a port in use is exit 69) with a new random token when the address is
    /// not a loopback one or `--http-token` asks, and prints `metronome: web remote on URL` on standard error, the
    /// token in the URL (for an address of every interface, a line per address of this machine). On an address that
    /// is not loopback (so with a token), when `setup.qrCode` asks (the CLI: standard error is a terminal and
    /// `--quiet` is not given), the first URL (another machine's address before loopback) follows as a QR code for a
    /// phone's camera; a URL too long for one gets a line saying so instead.
    static func start(
        _ setup: WebSetup, service: OSCService, say: (String) -> Void
    ) throws(CommandLineError) -> WebRemote {
        let token = WebAccess.token(for: setup.address, required: setup.token)
        let remote: WebRemote
        do {
            remote = try WebRemote(address: setup.address, token: token, service: service, patterns: setup.patterns)
        } catch {
            throw CommandLineError(.unavailable, "\(error.description); choose another with --http [HOST:]PORT")
        }
        let urls = remote.urls
        for url in urls { say("metronome: web remote on \(url)\n") }
        // A phone cannot open a loopback address: the code is for a bind another machine can reach.
        if token != nil, !setup.address.isLoopback, setup.qrCode, let url = urls.first {
            do { say(try QRCode(encoding: Array(url.utf8)).terminalText) } catch {
                say("metronome: the URL is not drawn as a QR code: \(error.description)\n")
            }
        }
        return remote
    }
}

extension OSCServiceHost {
    /// Starts listening (a port in use is exit 69), warns once when the address is not a loopback one, and prints
    /// `metronome: listening for OSC on udp HOST:PORT` (the port the system chose for port 0) on standard error.
    static func start(
        _ setup: ServeSetup, session: Session, say: (String) -> Void
    ) throws(CommandLineError) -> OSCServiceHost {
        let host: OSCServiceHost
        do {
            host = try OSCServiceHost(endpoint: setup.endpoint, session: session, settings: setup.settings)
        } catch {
            switch error {
            case .bind(let bind):
                throw CommandLineError(.unavailable, "\(bind.description); choose another with --osc HOST:PORT")
            case .session(let session): throw CommandLineError(.usage, session.description)
            }
        }
        if !host.endpoint.isLoopback {
            say(
                "metronome: warning: OSC has no authentication: anyone who can reach udp \(host.endpoint) can "
                    + "start, stop and retime the metronome, play notes, load any pattern file this user can "
                    + "read, and make it quit\n")
        }
        say("metronome: listening for OSC on udp \(host.endpoint)\n")
        return host
    }
}
