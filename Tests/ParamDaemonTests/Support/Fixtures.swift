/// Configuration the end-to-end tests share (issue 34 item 7: one `[cutoff]` fixture).
enum Fixtures {
    /// The declared parameter the tests use: `[cutoff]`, 20 Hz to 20 kHz on a log domain,
    /// starting at 1 kHz, with its CV port unless `cv` is false. No newline at the end.
    static func cutoff(cv: Bool = true) -> String {
        (["[cutoff]", "min = 20", "max = 20000", "initial = 1000", "unit = \"Hz\"", "domain = \"log\""]
            + (cv ? ["cv = true"] : [])).joined(separator: "\n")
    }
}
