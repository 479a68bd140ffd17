import CPNG
import CQRencode
import Foundation

/// A QR code symbol made by Debian's libqrencode, shown in a terminal or written as a PNG.
package struct QRCode: Sendable, Hashable {
    /// Modules per side.
    package let size: Int
    /// The QR version (1-40) libqrencode chose for the text.
    package let version: Int
    private let dark: [Bool]  // row by row, `size` * `size`

    /// Encodes `text` as bytes (8-bit mode) at error correction level M (15 % of the symbol may be
    /// lost), in the smallest version that holds it.
    package init(_ text: String) throws(ProvisioningError) {
        guard let symbol = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else {
            throw ProvisioningError("The text (\(text.utf8.count) bytes) does not fit in a QR code: \(String(cString: strerror(errno))).")
        }
        defer { QRcode_free(symbol) }
        let width = Int(symbol.pointee.width)
        size = width
        version = Int(symbol.pointee.version)
        // libqrencode: bit 0 of each byte is the module's colour (1 = dark).
        dark = (0..<width * width).map { symbol.pointee.data[$0] & 1 == 1 }
    }

    /// Whether the module at `x`, `y` is dark; outside the symbol (the quiet zone) it is light.
    func isDark(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < size && y < size && dark[y * size + x]
    }

    /// The symbol for a terminal: two rows of modules per line with the half blocks `▀ ▄ █`,
    /// black on white (ANSI colours 30 and 47) whatever the terminal's own colours, with a
    /// quiet zone of `margin` modules.
    package func terminalText(margin: Int = 2) -> String {
        var lines: [String] = []
        var y = -margin
        while y < size + margin {
            var line = "\u{1B}[30;47m"
            for x in -margin..<(size + margin) {
                switch (isDark(x: x, y: y), isDark(x: x, y: y + 1)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line + "\u{1B}[0m")
            y += 2
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The symbol as a greyscale PNG (libpng): `scale` pixels per module and a quiet zone of
    /// `margin` modules (4 is what the QR standard asks for).
    package func png(scale: Int = 8, margin: Int = 4) throws(ProvisioningError) -> Data {
        let side = (size + 2 * margin) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<side {
            for x in 0..<side where isDark(x: x / scale - margin, y: y / scale - margin) {
                pixels[y * side + x] = 0
            }
        }
        var message = [CChar](repeating: 0, count: 64)
        var needed = 0
        guard whereabouts_png_write_gray(pixels, UInt32(side), UInt32(side), nil, &needed, &message) != 0 else {
            throw ProvisioningError("libpng could not size the QR code's PNG: \(Self.text(of: message)).")
        }
        var bytes = [UInt8](repeating: 0, count: needed)
        var written = needed
        let ok = bytes.withUnsafeMutableBytes { buffer in
            whereabouts_png_write_gray(pixels, UInt32(side), UInt32(side), buffer.baseAddress, &written, &message)
        }
        guard ok != 0 else { throw ProvisioningError("libpng could not write the QR code's PNG: \(Self.text(of: message)).") }
        return Data(bytes.prefix(written))
    }
}

extension QRCode {
    /// The NUL-terminated message libpng's wrapper wrote into `buffer`, as text.
    fileprivate static func text(of buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
