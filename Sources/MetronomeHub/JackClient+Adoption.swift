import MetronomeApp
import MetronomeJack

/// `--driver jack` and live playback: the client opened before the plan is made, so that the plan and the lookahead
/// are made for its server.
extension JackClient {
    /// Opens the client that will play (its server's rate and period are what the plan and the lookahead are made
    /// for) and sets its rate as the sample rate: the server's rate rules.
    /// - Parameters:
    ///   - jack: the checked JACK settings (`LiveSettings.jack`): the client's name.
    ///   - sampleRate: `--sample-rate` as given, nil when not; set to the server's rate.
    /// - Returns: the client, for `LiveCommand` to play through.
    /// - Throws: `CommandLineError`: no server is exit 69 in one line; a `sampleRate` given that differs from the
    ///   server's is exit 64.
    public static func adopting(_ jack: JackSettings, sampleRate: inout String?) throws(CommandLineError)
        -> JackClient
    {
        let client: JackClient
        do { client = try JackClient(name: jack.clientName) } catch {
            throw CommandLineError(.unavailable, error.description)
        }
        let rate = client.sampleRate
        if let given = sampleRate, Int(given) != rate {
            throw CommandLineError(
                .usage,
                "--sample-rate \(given): the JACK server '\(JackOutput.defaultServerName)' runs at \(rate) Hz; with "
                    + "--driver jack leave --sample-rate out")
        }
        sampleRate = String(rate)
        return client
    }
}
