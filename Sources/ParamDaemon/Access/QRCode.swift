import CQRencode

/// A QR code of a URL for a terminal (SPEC §16: `paramd --show-url`), encoded by libqrencode
/// (error correction M, 8-bit mode) and drawn two modules to a character with half blocks,
/// inside the four-module quiet zone a scanner needs.
struct QRCode {
    /// Rows of modules, true for dark, quiet zone included.
    let modules: [[Bool]]

    static let quietZone = 4

    /// nil when libqrencode cannot encode `text` (too long for any version).
    init?(_ text: String) {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width), size = width + 2 * Self.quietZone
        var rows = [[Bool]](repeating: [Bool](repeating: false, count: size), count: size)
        for y in 0..<width {
            for x in 0..<width where code.pointee.data[y * width + x] & 1 != 0 {
                rows[y + Self.quietZone][x + Self.quietZone] = true
            }
        }
        modules = rows
    }

    /// The code as lines of text: `▀`, `▄`, `█` and spaces, dark modules as ink. `colored`
    /// draws black on white with ANSI colours, so a terminal with a dark background shows it
    /// the right way round.
    func lines(colored: Bool) -> [String] {
        let size = modules.count
        return stride(from: 0, to: size, by: 2).map { y in
            var line = colored ? "\u{1B}[30;47m" : ""
            for x in 0..<size {
                let top = modules[y][x], bottom = y + 1 < size && modules[y + 1][x]
                line += top && bottom ? "█" : top ? "▀" : bottom ? "▄" : " "
            }
            return line + (colored ? "\u{1B}[0m" : "")
        }
    }
}
