import CommandLineDialect
import CommandLineSupport
import Testing
import WhereaboutsTestSupport
@testable import Publisher

@Suite("Config file")
struct ConfigFileTests {
    let keys: [ConfigKey] = [
        ConfigKey("broker", .string), ConfigKey("outbox-max", .integer), ConfigKey("epsilon", .number),
        ConfigKey("retain", .boolean), ConfigKey("replay-speed", .numberOrWord(["max"])),
        ConfigKey("log-level", .word(["debug", "info"])), ConfigKey("intervals", .numberList),
        ConfigKey("tls-insecure", .flag),
    ]

    @Test("Keys become the equivalent flags, in file order")
    func arguments() throws {
        let yaml = """
            # a comment
            broker: mqtt://example.org:1883
            outbox-max: 5000
            epsilon: 50.5
            retain: false
            replay-speed: max
            log-level: debug
            intervals: [10, 20.5]
            """
        let file = try ConfigFile(text: yaml, path: "pub.yaml", keys: keys)
        #expect(file.arguments == [
            "--broker", "mqtt://example.org:1883", "--outbox-max", "5000", "--epsilon", "50.5",
            "--no-retain", "--replay-speed", "max", "--log-level", "debug", "--intervals", "10,20.5",
        ])
    }

    @Test("A flag with no --no- form is given for true and left off for false")
    func offByDefaultFlag() throws {
        #expect(try ConfigFile(text: "tls-insecure: true", path: "p", keys: keys).arguments == ["--tls-insecure"])
        #expect(try ConfigFile(text: "tls-insecure: off", path: "p", keys: keys).arguments == [])
        #expect(throws: ConfigFileError.self) { try ConfigFile(text: "tls-insecure: maybe", path: "p", keys: keys) }
    }

    @Test("An empty file sets nothing")
    func empty() throws {
        #expect(try ConfigFile(text: "", path: "p", keys: keys).arguments == [])
    }

    @Test("An unknown key is an error naming the key and its line")
    func unknownKey() {
        let yaml = "broker: mqtt://h:1\npasword-file: /x\n"
        #expect(throws: ConfigFileError.unknownKey(path: "pub.yaml", key: "pasword-file", line: 2)) {
            try ConfigFile(text: yaml, path: "pub.yaml", keys: keys)
        }
        let message = ConfigFileError.unknownKey(path: "pub.yaml", key: "pasword-file", line: 2).description
        #expect(message.contains("pub.yaml:2") && message.contains("'pasword-file'"))
    }

    @Test("A value of the wrong kind names the key, line, value and what was expected",
          arguments: [
            ("outbox-max: lots", "outbox-max", "a whole number"),
            ("outbox-max: 1.5", "outbox-max", "a whole number"),
            ("epsilon: fifty", "epsilon", "a number"),
            ("epsilon: .nan", "epsilon", "a number"),
            ("retain: maybe", "retain", "true or false"),
            ("replay-speed: fast", "replay-speed", "a number or max"),
            ("log-level: loud", "log-level", "one of debug, info"),
            ("intervals: [1, x]", "intervals", "a list of numbers"),
            ("broker: {host: x}", "broker", "a string"),
            ("broker:", "broker", "a string"),
          ])
    func invalidValue(yaml: String, key: String, expected: String) {
        do {
            _ = try ConfigFile(text: "# first line\n" + yaml, path: "p.yaml", keys: keys)
            Issue.record("accepted \(yaml)")
        } catch {
            guard case let .invalidValue(_, k, line, _, e) = error else { Issue.record("\(error)"); return }
            #expect(k == key)
            #expect(line == 2)
            #expect(e == expected)
            #expect(error.description.hasPrefix("p.yaml:2: the value"))
        }
    }

    @Test("Booleans: true/false and YAML 1.1's yes/no/on/off in any case, as the file always took them", arguments: [
        ("retain: true", "--retain"), ("retain: False", "--no-retain"), ("retain: yes", "--retain"), ("retain: NO", "--no-retain"),
        ("retain: on", "--retain"), ("retain: Off", "--no-retain"), ("retain: 'true'", "--retain"),
    ])
    func booleans(yaml: String, flag: String) throws {
        #expect(try ConfigFile(text: yaml, path: "p", keys: keys).arguments == [flag])
    }

    @Test("Whole numbers reach the flag in decimal; quoted or separated digits are not numbers")
    func wholeNumbers() throws {
        #expect(try ConfigFile(text: "outbox-max: 0x10", path: "p", keys: keys).arguments == ["--outbox-max", "16"])
        #expect(try ConfigFile(text: "outbox-max: -3", path: "p", keys: keys).arguments == ["--outbox-max", "-3"])
        for text in ["outbox-max: '5000'", "outbox-max: 1_000", "epsilon: \"5\"", "intervals: ['1']"] {
            #expect(throws: ConfigFileError.self, "\(text)") { try ConfigFile(text: text, path: "p", keys: keys) }
        }
    }

    @Test("Broken YAML names the file, line and column and what was expected")
    func syntaxMessage() {
        do {
            _ = try ConfigFile(text: "broker: a\nintervals: [1, 2\n", path: "pub.yaml", keys: keys)
            Issue.record("accepted")
        } catch {
            guard case .malformedYAML = error else { Issue.record("\(error)"); return }
            #expect(error.description.hasPrefix("The config file pub.yaml is not valid YAML: line 3, column 1: did not find expected ',' or ']'"), "\(error)")
        }
    }

    @Test("An alias is refused naming its line")
    func alias() {
        do {
            _ = try ConfigFile(text: "broker: &b mqtt://h:1\nlog-level: *b\n", path: "p", keys: keys)
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("line 2, column 12: the alias `*b` is not supported"), "\(error)")
        }
    }

    @Test("A duplicate key, a non-mapping and broken YAML are errors")
    func structure() {
        #expect(throws: ConfigFileError.duplicateKey(path: "p", key: "broker", line: 2)) {
            try ConfigFile(text: "broker: a\nbroker: b\n", path: "p", keys: keys)
        }
        #expect(throws: ConfigFileError.notAMapping(path: "p", line: 1)) {
            try ConfigFile(text: "- broker\n", path: "p", keys: keys)
        }
        #expect(throws: ConfigFileError.self) { try ConfigFile(text: "broker: [unclosed\n", path: "p", keys: keys) }
    }

    @Test("A file nesting deeper than a config file can is refused, not a stack overflow")
    func deepNesting() {
        // Found by the config fuzz harness: 20,000 `[` overflowed the stack inside Yams (the reader before libyaml).
        for text in [String(repeating: "[", count: 20_000), "broker: " + String(repeating: "{a: ", count: 70)] {
            do {
                _ = try ConfigFile(text: text, path: "p", keys: keys)
                Issue.record("accepted \(text.prefix(20))")
            } catch {
                guard case .malformedYAML(let path, let reason) = error else { Issue.record("\(error)"); continue }
                #expect(path == "p" && reason.contains("nests more than 64 levels"))
            }
        }
    }

    @Test("A key that is itself a list or mapping is an unknown key, not a crash")
    func complexKey() {
        // Found by the config fuzz harness: `? ? - -` crashed inside Yams (the reader before libyaml) while the key was named.
        #expect(throws: ConfigFileError.unknownKey(path: "p", key: "a mapping", line: 1)) {
            try ConfigFile(text: "? ? - -", path: "p", keys: keys)
        }
        #expect(throws: ConfigFileError.unknownKey(path: "p", key: "a list", line: 1)) {
            try ConfigFile(text: "? [a, b]\n: 1\n", path: "p", keys: keys)
        }
    }

    @Test("A missing file is an error naming it")
    func missingFile() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("nope.yaml")
        do {
            _ = try ConfigFile(contentsOf: path, keys: keys)
            Issue.record("read a missing file")
        } catch {
            guard case .unreadable(let p, _) = error else { Issue.record("\(error)"); return }
            #expect(p == path)
        }
    }
}
