/// The web remote's one page: HTML, its style and its script, all in the binary (no file to install, nothing fetched
/// from elsewhere).
enum WebPage {
    /// The whole page.
    static let html = head + style + body + "<script>\n" + script + "</script>\n</body>\n</html>\n"
}
