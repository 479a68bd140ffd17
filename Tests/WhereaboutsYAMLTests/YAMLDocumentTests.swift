import Testing
import WhereaboutsYAML

/// The document tree read through libyaml: shapes, marks and the core schema's readings.
@Suite("YAML document")
struct YAMLDocumentTests {
    @Test("Mappings keep their keys in order, with the line and column of each")
    func marks() throws {
        let root = try #require(try YAMLDocument.parse("# comment\nb: 1\na:\n  - x\n  - {k: v}\n"))
        let pairs = try #require(root.pairs)
        #expect(pairs.map { $0.key.text } == ["b", "a"])
        #expect(pairs[0].key.mark == YAMLMark(line: 2, column: 1))
        #expect(pairs[0].value.mark == YAMLMark(line: 2, column: 4))
        let items = try #require(root["a"]?.items)
        #expect(items[0].text == "x" && items[0].mark == YAMLMark(line: 4, column: 5))
        #expect(items[1]["k"]?.text == "v" && items[1].mark == YAMLMark(line: 5, column: 5))
    }

    @Test("An empty or comment-only text holds no document", arguments: ["", "# only a comment\n", "\n\n"])
    func empty(text: String) throws {
        #expect(try YAMLDocument.parse(text) == nil)
    }

    @Test("Plain scalars read as the YAML 1.2 core schema says; quoted ones stay text", arguments: [
        // text, isNull, bool, int, double
        ("a: ~", true, nil, nil, nil),
        ("a:", true, nil, nil, nil),
        ("a: null", true, nil, nil, nil),
        ("a: NULL", true, nil, nil, nil),
        ("a: \"null\"", false, nil, nil, nil),
        ("a: ''", false, nil, nil, nil),
        ("a: true", false, true, nil, nil),
        ("a: FALSE", false, false, nil, nil),
        ("a: 'true'", false, nil, nil, nil),
        ("a: yes", false, nil, nil, nil),  // YAML 1.1 only; the config file's booleans accept it themselves
        ("a: 42", false, nil, 42, 42.0),
        ("a: -7", false, nil, -7, -7.0),
        ("a: 0x1F", false, nil, 31, 31.0),
        ("a: 0o17", false, nil, 15, 15.0),
        ("a: \"42\"", false, nil, nil, nil),
        ("a: 1_000", false, nil, nil, nil),
        ("a: 99999999999999999999", false, nil, nil, 1e20),
        ("a: 2.5", false, nil, nil, 2.5),
        ("a: -.5e3", false, nil, nil, -500.0),
        ("a: 1.", false, nil, nil, 1.0),
        ("a: .inf", false, nil, nil, Double.infinity),
        ("a: 1.2.3", false, nil, nil, nil),
        ("a: !!str 42", false, nil, nil, nil),
        ("a: !!int '42'", false, nil, 42, 42.0),
    ] as [(String, Bool, Bool?, Int?, Double?)])
    func coreSchema(text: String, isNull: Bool, bool: Bool?, int: Int?, double: Double?) throws {
        guard case .scalar(let scalar)? = try YAMLDocument.parse(text)?["a"] else {
            Issue.record("no scalar in \(text)")
            return
        }
        #expect(scalar.isNull == isNull)
        #expect(scalar.bool == bool)
        #expect(scalar.int == int)
        #expect(scalar.double == double)
    }

    @Test(".nan reads as a number that is not finite")
    func nan() throws {
        guard case .scalar(let scalar)? = try YAMLDocument.parse("- .nan")?.items?.first else {
            Issue.record("no scalar")
            return
        }
        #expect(scalar.double?.isNaN == true)
    }

    @Test("Styles and escapes: quotes, blocks, unicode escapes")
    func styles() throws {
        let root = try #require(try YAMLDocument.parse("a: 'it''s'\nb: \"tab\\there \\u00e9\"\nc: |\n  one\n  two\nd: >\n  one\n  two\n"))
        guard case .scalar(let a)? = root["a"], case .scalar(let b)? = root["b"], case .scalar(let c)? = root["c"],
              case .scalar(let d)? = root["d"] else {
            Issue.record("not scalars")
            return
        }
        #expect(a.text == "it's" && a.style == .singleQuoted)
        #expect(b.text == "tab\there é" && b.style == .doubleQuoted)
        #expect(c.text == "one\ntwo\n" && c.style == .literal)
        #expect(d.text == "one two\n" && d.style == .folded)
    }

    @Test("A syntax error names the line and column and what was expected")
    func syntaxError() {
        #expect {
            try YAMLDocument.parse("a: [1, 2\nb: 3\n")
        } throws: { error in
            let error = error as! YAMLParseError
            return error.line == 2 && error.description.hasPrefix("line 2, column ")
                && error.message.contains("did not find expected ',' or ']'")
                && error.message.contains("flow sequence that starts at line 1, column 4")
        }
    }

    @Test("A second document is refused at its line")
    func twoDocuments() {
        #expect {
            try YAMLDocument.parse("a: 1\n---\nb: 2\n")
        } throws: { error in
            let error = error as! YAMLParseError
            return error.line == 2 && error.message.contains("second YAML document")
        }
    }
}
