import Foundation
import NIOCore

/// Bytes written straight into memory reserved in a `ByteBuffer`: what the Recorder API's
/// encoder (``RecorderEncoder``) writes each location with.
///
/// Why by hand: building a `String` per location (interpolation, `String(Int)`, `"\(Double)"`)
/// and copying it into the buffer held `/api/0/locations` to about 44,000 points per second
/// (BENCHMARKS.md, "Recorder API", the "before" rows); writing the bytes in place is what lets
/// it stream the 500,000 per second issue 14 asks for. Integers are written digit by digit;
/// a `Double` is written by the standard library's own shortest round-trip formatter
/// (`Double.write(to:)`, the same digits as `description`), whose ASCII output lands here
/// without a `String` in between (``_writeASCII(_:)``).
///
/// Every write checks the reserved room (`precondition`): a caller that reserved too little
/// stops the process rather than writing past the buffer.
struct RecorderBytes: TextOutputStream {
    private let buffer: UnsafeMutableRawBufferPointer
    private var capacity: Int { buffer.count }
    /// The bytes written so far.
    private(set) var count = 0

    /// Writes into `buffer`, which must stay valid while this is used.
    init(_ buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    /// Reserves at least `bound` bytes at the end of `buffer`, lets `body` write at most that
    /// many, and moves the buffer's writer index past what it wrote.
    static func append(to buffer: inout ByteBuffer, bound: Int, _ body: (inout RecorderBytes) -> Void) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { raw in
            var bytes = RecorderBytes(UnsafeMutableRawBufferPointer(rebasing: raw.prefix(bound)))
            body(&bytes)
            return bytes.count
        }
    }

    private mutating func room(_ needed: Int) {
        precondition(count + needed <= capacity, "RecorderBytes: more written than reserved")
    }

    /// One byte.
    mutating func byte(_ value: UInt8) {
        room(1)
        buffer.storeBytes(of: value, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// The bytes of `bytes`.
    mutating func bytes(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        room(bytes.count)
        UnsafeMutableRawBufferPointer(rebasing: buffer[count..<(count + bytes.count)]).copyMemory(from: bytes)
        count += bytes.count
    }

    /// The bytes of `bytes`.
    mutating func bytes(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { self.bytes($0) }
    }

    /// An ASCII literal.
    mutating func ascii(_ text: StaticString) {
        text.withUTF8Buffer { bytes(UnsafeRawBufferPointer($0)) }
    }

    /// The UTF-8 of `text`.
    mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
    }

    /// Where `Double.write(to:)` puts its digits (the standard library's hook for ASCII output).
    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        bytes(UnsafeRawBufferPointer(buffer))
    }

    /// The `count` bytes written from `offset` on, once more.
    mutating func repeatWritten(from offset: Int, count length: Int) {
        precondition(offset >= 0 && offset + length <= count, "RecorderBytes: repeating bytes not written")
        room(length)
        UnsafeMutableRawBufferPointer(rebasing: buffer[count..<(count + length)])
            .copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + length)]))
        count += length
    }

    /// Replaces the byte written at `offset`.
    mutating func replace(at offset: Int, with value: UInt8) {
        precondition(offset >= 0 && offset < count, "RecorderBytes: replacing a byte not written")
        buffer.storeBytes(of: value, toByteOffset: offset, as: UInt8.self)
    }

    /// `value` in decimal.
    mutating func int(_ value: Int) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var probe = magnitude
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        room(digits)
        var index = count + digits
        repeat {
            index -= 1
            buffer.storeBytes(of: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10), toByteOffset: index, as: UInt8.self)
            magnitude /= 10
        } while magnitude > 0
        count += digits
    }

    /// `value` as Swift's `description` writes it (`52.0`, `-8.6267`, `1e-07`): the shortest
    /// text that reads back as the same `Double`.
    mutating func double(_ value: Double) {
        value.write(to: &self)
    }

    /// `tst` as ISO 8601 in UTC, `2026-11-24T03:06:04Z`, or with `separator` `" "` and no `Z`
    /// the Recorder's `disptst`, `2026-11-24 03:06:04`; years outside 0…9999 as
    /// ``RecorderLocation/isoTime(_:)`` writes them.
    /// Returns whether the year was within 0…9999 (the bytes written are then exactly 19, or 20
    /// with the zone).
    @discardableResult
    mutating func time(_ tst: Int, separator: UInt8 = UInt8(ascii: "T"), zone: Bool = true) -> Bool {
        // Days to the civil date: Howard Hinnant's `civil_from_days`
        // (https://howardhinnant.github.io/date_algorithms.html), in place of `gmtime_r`.
        let days = tst >= 0 ? tst / 86_400 : (tst - 86_399) / 86_400
        let second = tst - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard (0...9999).contains(year) else {
            let iso = RecorderLocation.isoTime(tst)
            write(zone ? iso : String(iso.dropLast()).replacingOccurrences(of: "T", with: String(UnicodeScalar(separator))))
            return false
        }
        room(20)
        func two(_ value: Int) {
            byte(UInt8(ascii: "0") &+ UInt8(value / 10))
            byte(UInt8(ascii: "0") &+ UInt8(value % 10))
        }
        two(year / 100)
        two(year % 100)
        byte(UInt8(ascii: "-"))
        two(month)
        byte(UInt8(ascii: "-"))
        two(day)
        byte(separator)
        two(second / 3600)
        byte(UInt8(ascii: ":"))
        two(second / 60 % 60)
        byte(UInt8(ascii: ":"))
        two(second % 60)
        if zone { byte(UInt8(ascii: "Z")) }
        return true
    }

    /// `text` (UTF-8) as a JSON string literal: quotes, backslashes and control characters
    /// escaped, the rest as it is (text that is not valid UTF-8 is repaired first). At most
    /// `6 × text.count + 2` bytes.
    mutating func jsonString(_ text: UnsafeRawBufferPointer) {
        byte(UInt8(ascii: "\""))
        jsonStringContent(text)
        byte(UInt8(ascii: "\""))
    }

    /// ``jsonString(_:)`` without the quotes around.
    mutating func jsonStringContent(_ text: UnsafeRawBufferPointer) {
        if Self.isPlain(text, besides: UInt8(ascii: "\\")) {
            bytes(text)
        } else {
            repairedBytes(text) { out, byte in
                switch byte {
                case UInt8(ascii: "\""): out.ascii("\\\"")
                case UInt8(ascii: "\\"): out.ascii("\\\\")
                case UInt8(ascii: "\n"): out.ascii("\\n")
                case UInt8(ascii: "\r"): out.ascii("\\r")
                case UInt8(ascii: "\t"): out.ascii("\\t")
                case ..<0x20:
                    let hex: StaticString = "0123456789abcdef"
                    out.ascii("\\u00")
                    hex.withUTF8Buffer { digits in
                        out.byte(digits[Int(byte >> 4)])
                        out.byte(digits[Int(byte & 0xF)])
                    }
                default: out.byte(byte)
                }
            }
        }
    }

    /// `text` (UTF-8) as the value of an XML attribute in double quotes: `&`, `<`, `>`, `"` and
    /// `'` as entities, control characters (which XML 1.0 does not allow) as spaces, text that is
    /// not valid UTF-8 repaired first. At most `6 × text.count` bytes.
    mutating func xmlText(_ text: UnsafeRawBufferPointer) {
        let special: (UInt8) -> Bool = { $0 < 0x20 || $0 >= 0x80 || $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<")
            || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'") }
        guard text.contains(where: special) else {
            bytes(text)
            return
        }
        repairedBytes(text) { out, byte in
            switch byte {
            case UInt8(ascii: "&"): out.ascii("&amp;")
            case UInt8(ascii: "<"): out.ascii("&lt;")
            case UInt8(ascii: ">"): out.ascii("&gt;")
            case UInt8(ascii: "\""): out.ascii("&quot;")
            case UInt8(ascii: "'"): out.ascii("&apos;")
            case ..<0x20: out.byte(UInt8(ascii: " "))
            default: out.byte(byte)
            }
        }
    }

    /// The slow path of the escaping writers: `text` repaired as UTF-8 (each invalid sequence
    /// becomes U+FFFD), each of its bytes handed to `escape` to write.
    private mutating func repairedBytes(_ text: UnsafeRawBufferPointer, _ escape: (inout RecorderBytes, UInt8) -> Void) {
        var repaired = String(decoding: text, as: UTF8.self)
        repaired.withUTF8 { utf8 in
            for byte in utf8 { escape(&self, byte) }
        }
    }

    /// `text` (UTF-8) as a CSV cell: as it is, or quoted (RFC 4180) when it holds a comma, a
    /// quote or a line break. At most `6 × text.count + 2` bytes.
    mutating func csvCell(_ text: UnsafeRawBufferPointer) {
        if Self.isPlain(text, besides: UInt8(ascii: ",")) {
            bytes(text)
        } else {
            write(RecorderBytes.csvQuoted(String(decoding: text, as: UTF8.self)))
        }
    }

    /// Whether `text` is printable ASCII without a double quote and without `special` (a JSON
    /// string's backslash, a CSV cell's comma): such text is copied as it is, anything else takes
    /// the slower path that escapes or quotes it.
    @inline(__always)
    private static func isPlain(_ text: UnsafeRawBufferPointer, besides special: UInt8) -> Bool {
        !text.contains { $0 < 0x20 || $0 >= 0x80 || $0 == UInt8(ascii: "\"") || $0 == special }
    }

    /// `text` as a CSV cell: quoted (RFC 4180) when it holds a comma, a quote or a line break.
    static func csvQuoted(_ text: String) -> String {
        let plain = text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "\"") }
        guard !plain, text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` escaped as ``xmlText(_:)`` writes it.
    static func xmlEscaped(_ text: String) -> [UInt8] {
        var text = text
        let bound = max(1, 6 * text.utf8.count)
        return [UInt8](unsafeUninitializedCapacity: bound) { storage, initialized in
            var bytes = RecorderBytes(UnsafeMutableRawBufferPointer(storage))
            text.withUTF8 { bytes.xmlText(UnsafeRawBufferPointer($0)) }
            initialized = bytes.count
        }
    }

    /// `text` as a JSON string literal.
    static func jsonQuoted(_ text: String) -> [UInt8] {
        var text = text
        let bound = 6 * text.utf8.count + 2
        return [UInt8](unsafeUninitializedCapacity: bound) { storage, initialized in
            var bytes = RecorderBytes(UnsafeMutableRawBufferPointer(storage))
            text.withUTF8 { bytes.jsonString(UnsafeRawBufferPointer($0)) }
            initialized = bytes.count
        }
    }
}
