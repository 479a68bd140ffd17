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
        let line = raw.asciiTrimmed
        let bytes = line.utf8
        guard let first = bytes.first else { return .ignored }
        if first == UInt8(ascii: "#") || first == UInt8(ascii: "!") { return .ignored }
        guard bytes.count <= maximumLength else { return .rejected(.oversizeLine) }
        guard first == UInt8(ascii: "$") else { return .rejected(.garbage) }
        guard let star = bytes.lastIndex(of: UInt8(ascii: "*")) else { return .rejected(.truncated) }
        let bodyStart = bytes.index(after: bytes.startIndex)
        let sumStart = bytes.index(after: star)
        guard bytes.distance(from: sumStart, to: bytes.endIndex) == 2,
              let high = hexValue(bytes[sumStart]), let low = hexValue(bytes[bytes.index(after: sumStart)]) else {
            return .rejected(.truncated)
        }
        var sum: UInt8 = 0
        for byte in bytes[bodyStart..<star] { sum ^= byte }
        guard sum == high << 4 | low else { return .rejected(.badChecksum) }
        var fields: [Substring] = []
        fields.reserveCapacity(20)
        var fieldStart = bodyStart
        var index = bodyStart
        while index < star {
            if bytes[index] == UInt8(ascii: ",") {
                fields.append(line[fieldStart..<index])
                fieldStart = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        fields.append(line[fieldStart..<star])
        let address = fields.removeFirst()
        let addressBytes = address.utf8
        if addressBytes.first == UInt8(ascii: "P") { return .ignored }
        guard addressBytes.count == 5, addressBytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x5A }) else { return .rejected(.garbage) }
        let typeStart = addressBytes.index(addressBytes.startIndex, offsetBy: 2)
        return .sentence(NMEASentence(talker: address[..<typeStart], type: address[typeStart...], fields: fields))
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
