/// One field of an NMEA sentence: the bytes between two commas.
typealias NMEAField = ArraySlice<UInt8>

extension ArraySlice<UInt8> {
    /// Whether the field is exactly the one ASCII character `character`.
    func isCharacter(_ character: Unicode.Scalar) -> Bool {
        count == 1 && first == UInt8(ascii: character)
    }
}

/// Parsers for the field formats NMEA 0183 sentences share, working on bytes. Each returns `nil`
/// for text that is not of its format; callers decide whether an empty field is allowed.
enum NMEAFields {
    /// `hhmmss` or `hhmmss.sss` as seconds since midnight UTC.
    static func timeOfDay(_ field: NMEAField) -> Double? {
        guard field.count >= 6 else { return nil }
        let start = field.startIndex
        var value = [0, 0, 0]
        for part in 0..<3 {
            let tens = field[start + 2 * part], ones = field[start + 2 * part + 1]
            guard isDigit(tens), isDigit(ones) else { return nil }
            value[part] = Int(tens - 0x30) * 10 + Int(ones - 0x30)
        }
        guard value[0] < 24, value[1] < 60, value[2] < 61 else { return nil }
        var fraction = 0.0
        if field.count > 6 {
            guard field[start + 6] == UInt8(ascii: "."), let parsed = decimal(field[(start + 7)...], allowSign: false) else { return nil }
            fraction = parsed / pow10(field.count - 7)
        }
        return Double(value[0] * 3_600 + value[1] * 60 + value[2]) + fraction
    }

    /// `ddmmyy` as days since 1970-01-01 (years 80-99 are 1980-1999, 00-79 are 2000-2079).
    static func date(_ field: NMEAField) -> Int? {
        guard field.count == 6, field.allSatisfy(isDigit) else { return nil }
        let start = field.startIndex
        func two(_ i: Int) -> Int { Int(field[start + i] - 0x30) * 10 + Int(field[start + i + 1] - 0x30) }
        let (day, month, yy) = (two(0), two(2), two(4))
        let year = yy >= 80 ? 1900 + yy : 2000 + yy
        guard (1...12).contains(month), (1...UTCTime.daysIn(month: month, year: year)).contains(day) else { return nil }
        return UTCTime.daysFromCivil(year: year, month: month, day: day)
    }

    /// `ddmm.mmmm` / `dddmm.mmmm` with its hemisphere letter as signed degrees. Minutes must be
    /// below 60 and the hemisphere one of N, S, E, W; the degree range is left to validation.
    static func angle(_ value: NMEAField, hemisphere: NMEAField) -> Double? {
        guard let raw = decimal(value, allowSign: false) else { return nil }
        let degrees = (raw / 100).rounded(.down)
        let minutes = raw - degrees * 100
        guard minutes < 60 else { return nil }
        let magnitude = degrees + minutes / 60
        guard hemisphere.count == 1, let letter = hemisphere.first else { return nil }
        switch letter {
        case UInt8(ascii: "N"), UInt8(ascii: "E"): return magnitude
        case UInt8(ascii: "S"), UInt8(ascii: "W"): return -magnitude
        default: return nil
        }
    }

    /// A decimal number, `nil` for an empty field; anything else is a malformed field.
    static func optionalNumber(_ field: NMEAField) throws(SourceRejectionReason) -> Double? {
        if field.isEmpty { return nil }
        guard let value = decimal(field, allowSign: true) else { throw .malformedField }
        return value
    }

    /// A plain decimal (`-12.345`, `007`, `.5`): digits with at most one point, an optional leading
    /// minus. Computed as an integer divided by a power of ten, which for up to 15 significant
    /// digits gives the same correctly rounded `Double` as `strtod`.
    static func decimal(_ field: NMEAField, allowSign: Bool) -> Double? {
        var index = field.startIndex
        var negative = false
        if allowSign, index < field.endIndex, field[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var decimals = 0
        var seenPoint = false
        while index < field.endIndex {
            let byte = field[index]
            if isDigit(byte) {
                guard digits < 15 else { return slowDecimal(field) }
                mantissa = mantissa * 10 + UInt64(byte - 0x30)
                digits += 1
                if seenPoint { decimals += 1 }
            } else if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else {
                return nil
            }
            index += 1
        }
        guard digits > 0 else { return nil }
        let value = Double(mantissa) / pow10(decimals)
        return negative ? -value : value
    }

    private static func slowDecimal(_ field: NMEAField) -> Double? {
        guard field.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }) else { return nil }
        return Double(String(decoding: field, as: UTF8.self))
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }

    private static func pow10(_ exponent: Int) -> Double {
        if exponent < powersOfTen.count { return powersOfTen[exponent] }
        return (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= 0x30 && byte <= 0x39
    }
}
