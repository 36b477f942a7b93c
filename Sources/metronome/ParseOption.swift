import MetronomeKit

/// Reads an option's value with a library parser (`SettingText`, `BPM(parsing:)`…): its `InvalidValue` becomes
/// `OPTION TEXT: REASON` (the whole text given, even when the parser named a part of it), exit 64.
func parseOption<Value>(_ option: String, _ text: String, _ parser: (String) throws(InvalidValue) -> Value)
    throws(CommandLineError) -> Value
{
    do { return try SettingForm.parse(option, text, parser) } catch { throw CommandLineError(error) }
}
