/// A klick tempo map of three entries: labels (one glued to its bars), meters, a 7/8 ramp with an accent pattern and
/// a volume, comments, and a bar with a tempo per beat. The klick map tests parse it, and render it.
public enum KlickSong {
    /// The map's text.
    public static let text = """
        # a song
        intro: 2 4/4 120 Xxxx
        verse:4 7/8 100-140 X.xX.x. 0.8   # ramp
        3 3/4 90,100,110,120,130,140,150,160,170

        """
}
