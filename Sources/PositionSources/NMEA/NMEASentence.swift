/// One checksummed NMEA 0183 sentence split into its fields.
///
/// `$GPRMC,094737,A,...*1F` has talker `GP`, type `RMC` and the fields after the address. Any
/// talker is accepted (GP, GN, GL, GA, BD, ...); proprietary sentences (`$P...`) are not parsed.
struct NMEASentence {
    /// The two-letter talker ID (`GP` GPS, `GN` multi-constellation, `GL` GLONASS, `GA` Galileo...).
    var talker: Substring
    /// The three-letter sentence type (`RMC`, `GGA`, `GSA`, `VTG`, ...).
    var type: Substring
    /// The fields after the address, without the checksum; empty fields are empty strings.
    var fields: [Substring]

    /// The longest line accepted: NMEA allows 82 characters; a little slack for non-conforming units.
    static let maximumLength = 160

    /// What a line holds.
    enum Line {
        /// A sentence with a valid checksum.
        case sentence(NMEASentence)
        /// Nothing to parse: a blank line, a `#` comment (gpsd logs), an AIS `!` line, a proprietary sentence.
        case ignored
        /// Input that must be counted and skipped.
        case rejected(RejectionReason)
    }

    /// Parses one line (without its line terminator), checking the checksum.
    static func parse(_ raw: Substring) -> Line {
        let line = raw.trimmingASCIIWhitespace()
        guard let first = line.utf8.first else { return .ignored }
        if first == UInt8(ascii: "#") || first == UInt8(ascii: "!") { return .ignored }
        guard line.utf8.count <= maximumLength else { return .rejected(.oversizeLine) }
        guard first == UInt8(ascii: "$") else { return .rejected(.garbage) }
        guard let star = line.utf8.lastIndex(of: UInt8(ascii: "*")) else { return .rejected(.truncated) }
        let body = line.utf8[line.utf8.index(after: line.utf8.startIndex)..<star]
        let sumText = line.utf8[line.utf8.index(after: star)...]
        guard sumText.count == 2, let expected = UInt8(Substring(sumText), radix: 16) else { return .rejected(.truncated) }
        var sum: UInt8 = 0
        for byte in body { sum ^= byte }
        guard sum == expected else { return .rejected(.badChecksum) }
        let content = Substring(body)
        var parts = content.split(separator: ",", omittingEmptySubsequences: false)
        let address = parts.removeFirst()
        guard address.utf8.count == 5, address.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x5A }) else {
            if address.first == "P" { return .ignored }
            return .rejected(.garbage)
        }
        if address.first == "P" { return .ignored }
        return .sentence(NMEASentence(talker: address.prefix(2), type: address.dropFirst(2), fields: parts))
    }
}

extension Substring {
    func trimmingASCIIWhitespace() -> Substring {
        var result = self
        while let c = result.utf8.first, c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A || c == 0 { result = result.dropFirst() }
        while let c = result.utf8.last, c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A || c == 0 { result = result.dropLast() }
        return result
    }
}
