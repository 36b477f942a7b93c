
/// Where an offline render's frames go (a file writer, a test's buffer). Called on the rendering thread only.
public protocol AudioSink: AnyObject {
    /// Consumes interleaved Float32 frames.
    /// - Parameters:
    ///   - samples: `frameCount × channels` floats, valid only during the call.
    ///   - frameCount: frames in `samples`.
    /// - Throws: whatever the sink's I/O throws; the render stops.
    func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws
}
