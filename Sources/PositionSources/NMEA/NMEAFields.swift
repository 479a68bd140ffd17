/// Parsers for the field formats NMEA 0183 sentences share. Each returns `nil` for text that is not
/// of its format; callers decide whether an empty field is allowed.
enum NMEAFields {
    /// `hhmmss` or `hhmmss.sss` as seconds since midnight UTC.
    static func timeOfDay(_ field: Substring) -> Double? {
        let bytes = Array(field.utf8)
        guard bytes.count >= 6, bytes[0..<6].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        func two(_ i: Int) -> Int { Int(bytes[i] - 0x30) * 10 + Int(bytes[i + 1] - 0x30) }
        let (hour, minute, second) = (two(0), two(2), two(4))
        guard hour < 24, minute < 60, second < 61 else { return nil }
        var fraction = 0.0
        if bytes.count > 6 {
            guard bytes[6] == UInt8(ascii: "."), let value = Double("0" + String(field.dropFirst(6))) else { return nil }
            fraction = value
        }
        return Double(hour * 3_600 + minute * 60 + second) + fraction
    }

    /// `ddmmyy` as days since 1970-01-01 (years 80-99 are 1980-1999, 00-79 are 2000-2079).
    static func date(_ field: Substring) -> Int? {
        let bytes = Array(field.utf8)
        guard bytes.count == 6, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        func two(_ i: Int) -> Int { Int(bytes[i] - 0x30) * 10 + Int(bytes[i + 1] - 0x30) }
        let (day, month, yy) = (two(0), two(2), two(4))
        let year = yy >= 80 ? 1900 + yy : 2000 + yy
        guard (1...12).contains(month), (1...UTCTime.daysIn(month: month, year: year)).contains(day) else { return nil }
        return UTCTime.daysFromCivil(year: year, month: month, day: day)
    }

    /// `ddmm.mmmm` / `dddmm.mmmm` with its hemisphere letter as signed degrees. Minutes must be
    /// below 60 and the hemisphere one of N, S, E, W; the degree range is left to validation.
    static func angle(_ value: Substring, hemisphere: Substring) -> Double? {
        guard let raw = Double(value), raw.isFinite, raw >= 0 else { return nil }
        let degrees = (raw / 100).rounded(.down)
        let minutes = raw - degrees * 100
        guard minutes < 60 else { return nil }
        let magnitude = degrees + minutes / 60
        switch hemisphere {
        case "N", "E": return magnitude
        case "S", "W": return -magnitude
        default: return nil
        }
    }

    /// A decimal number, `nil` for an empty field, or a failure for anything else.
    static func optionalNumber(_ field: Substring) -> Result<Double?, RejectionReason> {
        if field.isEmpty { return .success(nil) }
        guard let value = Double(field) else { return .failure(.malformedField) }
        return .success(value)
    }
}
