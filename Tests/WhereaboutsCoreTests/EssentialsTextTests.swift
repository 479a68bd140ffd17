import Foundation
import SystemSupport
import Testing
import WhereaboutsCore

/// The text and path helpers that stand in for full Foundation in the publisher's modules
/// (whereabouts-pub links FoundationEssentials only), checked against full Foundation itself,
/// which this test target links: the same answers on ordinary and awkward input.
@Suite("FoundationEssentials stand-ins agree with Foundation")
struct EssentialsTextTests {
    static let texts = [
        "", " ", "\t", "alice", "  alice  ", "\talice\t", "\u{00A0}alice\u{2003}", "a b", " \n alice \r\n",
        "\u{0085}x\u{2028}", "\u{2029}", "\n\n", "é ", " 日本 ", "\u{000B}v\u{000C}",
    ]

    @Test("trimmingSpaces and trimmingWhitespaceAndNewlines remove what trimmingCharacters(in:) removes")
    func trimming() {
        for text in Self.texts {
            #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
            #expect(text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
        }
    }

    @Test("percentDecoded decodes as removingPercentEncoding does, nil for the same broken escapes")
    func percentDecoding() {
        for text in ["", "plain", "a%20b", "%41%42", "%e2%82%ac", "%E2%82%AC", "%", "%4", "%zz", "100%", "%ff", "%C3%28", "a+b", "%2F%2f"] {
            #expect(text.percentDecoded() == text.removingPercentEncoding, "\(text.debugDescription)")
        }
    }

    @Test("PathText.folder and PathText.appending answer as NSString's path methods")
    func paths() {
        for path in ["/var/lib/x.sqlite", "x.sqlite", "/x", "/", "a/b/", "a//b", "/a/b//", "./o.sqlite", "../a/b"] {
            #expect(PathText.folder(of: path) == (path as NSString).deletingLastPathComponent, "\(path)")
        }
        for (folder, name) in [("/var/lib", "x"), ("/var/lib/", "x"), ("", "x"), ("/", "x"), ("a", "b.json")] {
            #expect(PathText.appending(name, to: folder) == (folder as NSString).appendingPathComponent(name), "\(folder) + \(name)")
        }
        // Where NSString keeps a doubled slash ("a//x", "//x"), one slash stands between them, as
        // documented: the same file either way.
        #expect(PathText.appending("/x", to: "a") == "a/x")
        #expect(PathText.appending("b", to: "a//") == "a/b")
        #expect(PathText.appending("/x", to: "/") == "/x")
    }

    @Test("hex8 prints what String(format: \"%08x\") printed")
    func hex() {
        for value: UInt32 in [0, 1, 0xabc, 0xdead_beef, .max] {
            #expect(hex8(value) == String(format: "%08x", value))
        }
    }
}
