import Testing
import WhereaboutsYAML

/// Input written to hurt a YAML reader: each gets a clear error naming its line, or the right
/// value, within a bounded time.
@Suite("Hostile YAML")
struct HostileYAMLTests {
    /// Runs `body` and checks it took less than `limit` (generous: a debug build on a busy machine).
    static func bounded<T>(_ limit: Duration = .seconds(10), _ body: () throws -> T) rethrows -> T {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try body()
        let elapsed = clock.now - start
        #expect(elapsed < limit, "took \(elapsed)")
        return result
    }

    /// The parse error `text` raises, or `nil` (recorded as an issue) when it parses.
    static func error(_ text: String) -> YAMLParseError? {
        bounded { () -> YAMLParseError? in
            do throws(YAMLParseError) {
                _ = try YAMLDocument.parse(text)
                Issue.record("accepted \(text.prefix(40))")
                return nil
            } catch {
                return error
            }
        }
    }

    /// Texts nesting past the bound, built in the test (not as arguments, which the test log prints).
    static let tooDeep: [String: (text: String, line: Int)] = [
        "100,000 [": (String(repeating: "[", count: 100_000), 1),
        "20,000 {a: ": (String(repeating: "{a: ", count: 20_000), 1),
        "10,000 block list levels": ("top:\n" + String(repeating: "- ", count: 10_000) + "x\n", 2),
    ]

    @Test("Nesting past the bound is an error at its line, never a stack overflow", arguments: tooDeep.keys.sorted())
    func deepNesting(name: String) throws {
        let (text, line) = try #require(Self.tooDeep[name])
        let error = try #require(Self.error(text))
        #expect(error.line == line && error.message.contains("nest more than \(YAMLNesting.limit) levels"), "\(error)")
    }

    @Test("Nesting up to the bound is read")
    func nestingAtTheBound() throws {
        let depth = YAMLNesting.limit
        let text = String(repeating: "[", count: depth) + "x" + String(repeating: "]", count: depth)
        var node = try #require(try YAMLDocument.parse(text))
        for _ in 0..<depth { node = try #require(node.items?.first) }
        #expect(node.text == "x")
    }

    @Test("A scalar of several megabytes is read whole")
    func hugeScalar() throws {
        let big = String(repeating: "0123456789abcdef", count: 512 * 1024)  // 8 MiB
        let root = try Self.bounded { try YAMLDocument.parse("key: \(big)\nquoted: \"\(big)\"\n") }
        #expect(root?["key"]?.text?.utf8.count == big.utf8.count)
        #expect(root?["quoted"]?.text == big)
    }

    @Test("Many keys in one mapping are read in linear time")
    func wideMapping() throws {
        let text = (0..<100_000).map { "k\($0): \($0)\n" }.joined()
        let root = try Self.bounded { try YAMLDocument.parse(text) }
        #expect(root?.pairs?.count == 100_000)
        #expect(root?["k99999"]?.text == "99999")
    }

    @Test("A tab in indentation is an error at its line; a tab inside a value is kept")
    func tabs() throws {
        for text in ["a:\n\tb: 1\n", "é: ü\nb:\n\tc: 1\n"] {
            let error = try #require(Self.error(text))
            #expect(error.line == text.split(separator: "\n").count && error.column == 1, "\(error)")
            #expect(error.message.contains("a tab: YAML indents with spaces only"), "\(error)")
        }
        #expect(try YAMLDocument.parse("a: x\ty\n")?["a"]?.text == "x\ty")
    }

    @Test("Invalid UTF-8 is an error at its line and column")
    func invalidUTF8() throws {
        for bytes: [UInt8] in [Array("a: 1\nb: ".utf8) + [0xFF, 0x41], Array("a: 1\nb: \u{e9}".utf8).dropLast()] {
            do {
                _ = try YAMLDocument.parse(bytes: bytes)
                Issue.record("accepted \(bytes)")
            } catch {
                #expect(error.line == 2 && error.column == 4, "\(error)")
                #expect(error.message.contains("UTF-8"), "\(error)")
            }
        }
    }

    @Test("A control character is an error at its place")
    func controlCharacter() throws {
        let error = try #require(Self.error("a: 1\nb: x\u{1}y\n"))
        #expect(error.line == 2 && error.column == 5 && error.message.contains("control characters"), "\(error)")
    }

    @Test("Repeated keys are kept in order for the reader, which names them")
    func duplicateKeys() throws {
        let root = try #require(try YAMLDocument.parse("a: 1\nb: 2\na: 3\n"))
        #expect(root.pairs?.map { $0.value.text } == ["1", "2", "3"])
        let repeated = try #require(root.repeatedKey)
        #expect(repeated.key.text == "a" && repeated.key.mark.line == 3 && repeated.first.line == 1)
        #expect(try YAMLDocument.parse("a: 1\nb: 2\n")?.repeatedKey == nil)
    }

    @Test("An alias is refused at its line; an anchor alone is harmless")
    func aliases() throws {
        let error = try #require(Self.error("a: &x 1\nb: *x\n"))
        #expect(error.line == 2 && error.column == 4 && error.message.contains("alias `*x`"), "\(error)")
        #expect(try YAMLDocument.parse("a: &x 1\n")?["a"]?.text == "1")
    }

    @Test("A billion-laughs document is refused at its first alias, at once")
    func billionLaughs() throws {
        var lines = ["a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]"]
        for (name, previous) in zip("bcdefghi", "abcdefgh") {
            lines.append("\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ",") + "]")
        }
        let error = try #require(Self.error(lines.joined(separator: "\n") + "\n"))
        #expect(error.line == 2 && error.message.contains("alias `*a`"), "\(error)")
    }

    @Test("Truncated and garbled texts get an error naming the line", arguments: [
        "a: \"unterminated\n", "a: [1, 2", "a: b: c\n", "- a\nb: c\n", "%YAML 9.9\n---\na: 1\n", "a: !<\n",
    ])
    func garbled(text: String) throws {
        let error = try #require(Self.error(text))
        #expect(error.line >= 1 && !error.message.isEmpty, "\(error)")
    }
}
