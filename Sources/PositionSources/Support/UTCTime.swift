#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fast, allocation-free conversions from calendar fields and ISO 8601 text to `Date`, in UTC.
///
/// `ISO8601DateFormatter` is far too slow for a 200,000-point track, and GPS time is UTC anyway.
enum UTCTime {
    /// Seconds since 1970 for a UTC calendar date and time, or `nil` when a field is out of range.
    static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Double) -> Date? {
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute),
              second.isFinite, second >= 0, second < 61 else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60) + second)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Parses `YYYY-MM-DDThh:mm:ss[.fff][Z|±hh:mm|±hhmm]` (no zone means UTC), or returns `nil`.
    static func parseISO8601<S: StringProtocol>(_ text: S) -> Date? {
        var bytes = Substring(text).utf8[...]
        while let first = bytes.first, first == 0x20 || first == 0x0A || first == 0x0D || first == 0x09 { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x0A || last == 0x0D || last == 0x09 { bytes.removeLast() }
        guard let year = digits(&bytes, 4), expect(&bytes, 0x2D),
              let month = digits(&bytes, 2), expect(&bytes, 0x2D),
              let day = digits(&bytes, 2), expect(&bytes, 0x54) || expect(&bytes, 0x74) || expect(&bytes, 0x20),
              let hour = digits(&bytes, 2), expect(&bytes, 0x3A),
              let minute = digits(&bytes, 2), expect(&bytes, 0x3A),
              let wholeSecond = digits(&bytes, 2) else { return nil }
        var second = Double(wholeSecond)
        if expect(&bytes, 0x2E) || expect(&bytes, 0x2C) {
            var scale = 0.1
            var any = false
            while let b = bytes.first, b >= 0x30, b <= 0x39 {
                second += Double(b - 0x30) * scale
                scale /= 10
                any = true
                bytes.removeFirst()
            }
            guard any else { return nil }
        }
        var offset = 0
        if bytes.isEmpty || expect(&bytes, 0x5A) || expect(&bytes, 0x7A) {
            offset = 0
        } else if let sign = bytes.first, sign == 0x2B || sign == 0x2D {
            bytes.removeFirst()
            guard let h = digits(&bytes, 2) else { return nil }
            _ = expect(&bytes, 0x3A)
            let m = digits(&bytes, 2) ?? 0
            guard h <= 23, m <= 59 else { return nil }
            offset = (h * 3_600 + m * 60) * (sign == 0x2B ? 1 : -1)
        } else {
            return nil
        }
        guard bytes.isEmpty, let local = date(year: year, month: month, day: day, hour: hour, minute: minute, second: second) else {
            return nil
        }
        return local.addingTimeInterval(-Double(offset))
    }

    private static func digits(_ bytes: inout Substring.UTF8View.SubSequence, _ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let b = bytes.first, b >= 0x30, b <= 0x39 else { return nil }
            value = value * 10 + Int(b - 0x30)
            bytes.removeFirst()
        }
        return value
    }

    private static func expect(_ bytes: inout Substring.UTF8View.SubSequence, _ byte: UInt8) -> Bool {
        guard bytes.first == byte else { return false }
        bytes.removeFirst()
        return true
    }
}
