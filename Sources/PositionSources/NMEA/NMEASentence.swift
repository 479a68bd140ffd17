/// One checksummed NMEA 0183 sentence split into its fields.
///
/// `$GPRMC,094737,A,...*1F` has talker `GP`, type `RMC` and the fields after the address. Any
/// talker is accepted (GP, GN, GL, GA, BD, ...); proprietary sentences (`$P...`) are not parsed.
struct NMEASentence {
    /// The two-letter talker ID (`GP` GPS, `GN` multi-constellation, `GL` GLONASS, `GA` Galileo...).
    var talker: String
    /// The three-letter sentence type (`RMC`, `GGA`, `GSA`, `VTG`, ...).
    var type: String
    /// The fields after the address, without the checksum; empty fields are empty.
    var fields: [NMEAField]

    /// The longest line accepted: NMEA allows 82 characters; a little slack for non-conforming units.
    static let maximumLength = 160

    /// What a line holds.
    enum Line {
        /// A sentence with a valid checksum.
        case sentence(NMEASentence)
        /// Nothing to parse: a blank line, a `#` comment (gpsd logs), an AIS `!` line, a proprietary sentence.
        case ignored
        /// Input that must be counted and skipped.
        case rejected(SourceRejectionReason)
    }

    /// Parses one line of text (without its line terminator), checking the checksum.
    static func parse(_ line: Substring) -> Line {
        parse(ArraySlice(line.utf8))
    }

    /// Parses one line of bytes (without its line terminator), checking the checksum.
    static func parse(_ raw: ArraySlice<UInt8>) -> Line {
        let line = raw.asciiTrimmed
        guard let first = line.first else { return .ignored }
        if first == UInt8(ascii: "#") || first == UInt8(ascii: "!") { return .ignored }
        guard line.count <= maximumLength else { return .rejected(.oversizeLine) }
        guard first == UInt8(ascii: "$") else { return .rejected(.garbage) }
        guard let star = line.lastIndex(of: UInt8(ascii: "*")) else { return .rejected(.truncated) }
        let bodyStart = line.startIndex + 1
        guard line.endIndex - star == 3, let high = hexValue(line[star + 1]), let low = hexValue(line[star + 2]) else {
            return .rejected(.truncated)
        }
        var sum: UInt8 = 0
        for byte in line[bodyStart..<star] { sum ^= byte }
        guard sum == high << 4 | low else { return .rejected(.badChecksum) }
        var fields: [NMEAField] = []
        fields.reserveCapacity(20)
        var fieldStart = bodyStart
        for index in bodyStart..<star where line[index] == UInt8(ascii: ",") {
            fields.append(line[fieldStart..<index])
            fieldStart = index + 1
        }
        fields.append(line[fieldStart..<star])
        let address = fields.removeFirst()
        if address.first == UInt8(ascii: "P") { return .ignored }
        guard address.count == 5, address.allSatisfy({ $0 >= 0x30 && $0 <= 0x5A }) else { return .rejected(.garbage) }
        let typeStart = address.startIndex + 2
        return .sentence(NMEASentence(
            talker: String(decoding: address[..<typeStart], as: UTF8.self),
            type: String(decoding: address[typeStart...], as: UTF8.self),
            fields: fields
        ))
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}

extension ArraySlice<UInt8> {
    /// The bytes without leading and trailing ASCII whitespace (space, tab, CR, LF, NUL).
    var asciiTrimmed: ArraySlice<UInt8> {
        var start = startIndex
        var end = endIndex
        while start < end, isASCIISpace(self[start]) { start += 1 }
        while end > start, isASCIISpace(self[end - 1]) { end -= 1 }
        return self[start..<end]
    }
}
