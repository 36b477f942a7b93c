import MetronomeOSC
import Testing

@Suite("Lenient numbers: an integer where a float is expected and a float where an integer is")
struct OSCLenientTests {
    @Test("asFloat")
    func asFloat() {
        #expect(OSCArgument.float32(120.5).asFloat == 120.5)
        #expect(OSCArgument.int32(120).asFloat == 120.0)
        #expect(OSCArgument.int32(-7).asFloat == -7.0)
        #expect(OSCArgument.int32(16_777_217).asFloat == 16_777_216.0)  // the nearest Float
        #expect(OSCArgument.int64(1 << 40).asFloat == 1_099_511_627_776.0)
        #expect(OSCArgument.float64(0.1).asFloat == Float(0.1))
        #expect(OSCArgument.float64(1e300).asFloat == .infinity)
        #expect(OSCArgument.string("120").asFloat == nil)
        #expect(OSCArgument.bool(true).asFloat == nil)
        #expect(OSCArgument.null.asFloat == nil)
    }

    @Test("asInt: integral floats only, within Int32")
    func asInt() {
        #expect(OSCArgument.int32(7).asInt == 7)
        #expect(OSCArgument.float32(7.0).asInt == 7)
        #expect(OSCArgument.float32(-3.0).asInt == -3)
        #expect(OSCArgument.float32(-0.0).asInt == 0)
        #expect(OSCArgument.float32(7.5).asInt == nil)
        #expect(OSCArgument.float32(.nan).asInt == nil)
        #expect(OSCArgument.float32(.infinity).asInt == nil)
        #expect(OSCArgument.float32(3e10).asInt == nil)
        #expect(OSCArgument.float64(2_147_483_647.0).asInt == Int32.max)
        #expect(OSCArgument.float64(2_147_483_648.0).asInt == nil)
        #expect(OSCArgument.float64(-2_147_483_648.0).asInt == Int32.min)
        #expect(OSCArgument.int64(-5).asInt == -5)
        #expect(OSCArgument.int64(1 << 31).asInt == nil)
        #expect(OSCArgument.symbol("7").asInt == nil)
        #expect(OSCArgument.char(55).asInt == nil)
    }
}
