import MetronomeApp
import MetronomeLink

/// `--link`: the live command joins the Ableton Link session on the network and follows it both ways (`LinkSession`
/// as the session's `TempoSource`). Link's rules — the tempo range, the plan scaled to the session's tempo, the
/// quantized start — are the library's (`LinkSession.join`, `prepared`, `start`); this words their errors. Once the
/// output plays, `LinkCompanion` starts it on the run's clock and leaves the session at the end.
///
/// Joining comes before the first click: Link is enabled and given up to `LinkSession.joinWindow` to find a peer. The
/// plan then takes the session's tempo (a song is scaled, keeping its structure) and waits; once the stream runs, it
/// starts where Link's quantized launch puts bar 1. Link stays on to the end of the command.
struct LinkJoin {
    let link: LinkSession

    /// Joins (`LinkSession.join`): a tempo outside Link's range is exit 64, Link failing to start 69, Ctrl-C while
    /// joining 130.
    static func join(
        _ settings: LinkSettings, plan: ClickPlan, isCancelled: () -> Bool
    ) throws(CommandLineError) -> LinkJoin {
        do {
            return LinkJoin(link: try LinkSession.join(settings, plan: plan, isCancelled: isCancelled))
        } catch {
            throw error.commandLineError
        }
    }

    /// For `--follow midi-clock --link` (`LinkSession.leading`): Link failing to start is exit 69.
    static func leading(_ settings: LinkSettings, plan: ClickPlan) throws(CommandLineError) -> LinkJoin {
        do {
            return LinkJoin(link: try LinkSession.leading(settings, plan: plan))
        } catch {
            throw CommandLineError(.unavailable, error.description)
        }
    }

    /// For `serve` without `--link` (`LinkSession.idle`). Failing to create it is exit 69.
    static func idle(plan: ClickPlan) throws(CommandLineError) -> LinkJoin {
        do {
            return LinkJoin(link: try LinkSession.idle(plan: plan))
        } catch {
            throw CommandLineError(.unavailable, error.description)
        }
    }

    /// The plan to play (`LinkSession.prepared`): a scaled tempo outside Link's range is exit 64.
    func prepared(_ plan: ClickPlan) throws(CommandLineError) -> ClickPlan {
        do {
            return try link.prepared(plan)
        } catch {
            throw error.commandLineError
        }
    }

    /// Leaves the session (on the ways out before the run starts; `LinkCompanion` after).
    func stop() { link.enable(false) }
}

extension LinkPlanError {
    /// The command's error: its exit code and line.
    var commandLineError: CommandLineError {
        let range = LinkSession.tempoRange
        let between = "\(text(range.lowerBound)) to \(text(range.upperBound)) BPM"
        switch self {
        case .tempoOutsideRange(let outside):
            return CommandLineError(
                .usage, "--link: the tempo \(text(outside)) BPM is outside a Link session's range, \(between)")
        case .scaledOutsideRange(let session, let first, let scaled, let outside):
            return CommandLineError(
                .usage,
                "--link: the session's \(text(session)) BPM takes this plan from \(text(first)) to \(text(scaled)) BPM, "
                    + "and one of its tempos to \(text(outside)) BPM, outside a Link session's \(between)")
        case .unavailable(let error):
            return CommandLineError(.unavailable, error.description)
        case .interrupted:
            return CommandLineError(.interrupted, "interrupted while joining the Ableton Link session")
        }
    }

    private func text(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
