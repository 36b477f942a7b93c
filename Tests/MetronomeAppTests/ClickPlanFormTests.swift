import MetronomeApp
import MetronomeModel
import Testing

/// The click's settings made into a plan with the command line's wording (`SettingForm.clickPlan`), without the
/// binary: every command that plays a click, a pattern or a MIDI file starts there.
@Suite("MetronomeApp: the click's settings made into a plan")
struct ClickPlanFormTests {
    @Test("A plan from the settings, with the file they name or none to play live; a refused setting is exit 64")
    func clickPlan() throws {
        let live = try SettingForm([("--bpm", "90")]).clickPlan(.click(silent: false))
        #expect(live.output == nil)
        #expect(live.plan.map.tempo(at: .zero) == 90)
        let rendered = try SettingForm([("--bars", "2"), ("--output", "a.wav")]).clickPlan(.click(silent: false))
        #expect(rendered.output?.path == "a.wav")
        #expect(rendered.plan.bars == 2)
        do {
            _ = try SettingForm([("--bpm", "0")]).clickPlan(.click(silent: false))
            Issue.record("--bpm 0 was taken")
        } catch {
            #expect(error.status == .usage)
            #expect(error.message.hasPrefix("--bpm 0: "))
        }
    }
}
