import Foundation
import Testing
@testable import Subscriber

@Suite("Flat JSON reader")
struct FlatJSONTests {
    /// The members of `text` as (key, value) pairs, numbers and strings only.
    func members(_ text: String) throws -> [(String, FlatJSON.Value)] {
        var result: [(String, FlatJSON.Value)] = []
        try FlatJSON.parseObject(Array(text.utf8)) { key, value in
            result.append((String(decoding: key, as: UTF8.self), value))
        }
        return result
    }

    func number(_ literal: String) throws -> Double? {
        guard case .number(let value)? = try members(#"{"n":\#(literal)}"#).first?.1 else { return nil }
        return value
    }

    @Test("Numbers read exactly as the standard library reads them, on and off the fast path")
    func numbersMatchTheStandardLibrary() throws {
        var generator = SystemRandomNumberGenerator()
        var literals = [
            "0", "-0", "1", "-1", "0.1", "52.123456789", "-8.6", "1700000000", "1e22", "1e23", "1.5e-22",
            "123456789012345678", "9007199254740993", "18446744073709551616", "0.000001234", "2.5E+3", "4e-324",
            "1.7976931348623157e308", "1e400", "-1e-400", "0.30000000000000004", "123.456e-5", "12345678901234567890e-10",
        ]
        for _ in 0..<2_000 {
            let whole = Int.random(in: -180...180, using: &generator)
            let digits = Int.random(in: 0...12, using: &generator)
            let fraction = (0..<digits).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            literals.append(digits == 0 ? "\(whole)" : "\(whole).\(fraction)")
            let double = Double.random(in: -1e6...1e6, using: &generator)
            literals.append("\(double)")
        }
        for literal in literals {
            let expected = try #require(Double(literal), "\(literal)")
            let read = try #require(try number(literal), "\(literal)")
            #expect(read.bitPattern == expected.bitPattern, "\(literal): \(read) != \(expected)")
        }
    }

    @Test("Malformed numbers are errors", arguments: ["01", "1.", ".5", "-", "1e", "1e+", "+1", "0x10", "NaN", "Infinity", "1..2"])
    func malformedNumbers(_ literal: String) {
        #expect(throws: FlatJSON.Error.self) { try members(#"{"n":\#(literal)}"#) }
    }

    @Test("Keys come as bytes with escapes resolved; invalid UTF-8 in a key is an error")
    func keys() throws {
        let read = try members(#"{"l\u0061t":1,"_type":"location","tst":2}"#)
        #expect(read.map(\.0) == ["lat", "_type", "tst"])
        var bytes = Array(#"{"la"#.utf8) + [0xFF] + Array(#"":1}"#.utf8)
        #expect(throws: FlatJSON.Error.self) { try FlatJSON.parseObject(bytes) { _, _ in } }
        bytes = Array(#"{"tid":"a"#.utf8) + [0xC3] + Array(#""}"#.utf8)
        #expect(throws: FlatJSON.Error.self) { try FlatJSON.parseObject(bytes) { _, _ in } }
    }

    @Test("A top-level array of strings is kept (inregions); other arrays are skipped; nested ones stay validated")
    func stringArrays() throws {
        let parsed = try members(#"{"a":["Home","Work \u00e9"],"b":[],"c":["x",1],"d":[["x"]],"e":"s"}"#)
        #expect(parsed.count == 5)
        guard case .strings(let a) = parsed[0].1, case .strings(let b) = parsed[1].1 else {
            Issue.record("not string arrays")
            return
        }
        #expect(a == ["Home", "Work é"] && b.isEmpty)
        if case .nested = parsed[2].1 {} else { Issue.record("a mixed array is skipped") }
        if case .nested = parsed[3].1 {} else { Issue.record("an array of arrays is skipped") }
        #expect(throws: FlatJSON.Error.self) { try members(#"{"a":["x",]}"#) }
        #expect(throws: FlatJSON.Error.self) { try members(#"{"a":["x"}"#) }
    }

    @Test("Numeric strings read as numbers; anything else is not a number", arguments: [
        ("1795452224", 1_795_452_224.0), (" 52.5 ", 52.5), ("-8.6", -8.6), ("1e3", 1000.0),
    ])
    func numericStrings(text: String, value: Double) {
        #expect(WirePayload.numericString(text) == value)
    }

    @Test("Strings that only look numeric are refused", arguments: ["", "nan", "inf", "0x10", "1,5", "12abc", "--1"])
    func notNumeric(text: String) {
        #expect(WirePayload.numericString(text) == nil)
    }
}
