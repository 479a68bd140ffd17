import Foundation
import Testing
import WhereaboutsCore
@testable import PositionSources

@Suite("XML scanner")
struct XMLScannerTests {
    /// The tokens of `xml` as short strings (`<a x=1>`, `</a>`, `"text"`), adjacent text runs
    /// joined, and the error that ended the scan, if any.
    func scan(_ xml: String, maximumDepth: Int = 1024) -> (tokens: [String], error: XMLSyntaxError?) {
        scan(Array(xml.utf8), maximumDepth: maximumDepth)
    }

    /// Scans `bytes` in memory, and again as a stream through a window of a few bytes, which must
    /// give the same tokens and error: every test here also tests the streamed reading. (Text
    /// split by the window may come in more runs, so the text before a fault inside it may come
    /// as a token of its own before the error.)
    func scan(_ bytes: [UInt8], maximumDepth: Int = 1024) -> (tokens: [String], error: XMLSyntaxError?) {
        let whole = scan(bytes, maximumDepth: maximumDepth, window: nil)
        for window in [8, 13] {
            let streamed = scan(bytes, maximumDepth: maximumDepth, window: window)
            #expect(Array(streamed.tokens.prefix(whole.tokens.count)) == whole.tokens, "window \(window)")
            let extra = streamed.tokens.dropFirst(whole.tokens.count)
            #expect(extra.isEmpty || (whole.error != nil && extra.count == 1 && extra.allSatisfy { $0.hasPrefix("\"") }), "window \(window): \(extra)")
            #expect(streamed.error == whole.error, "window \(window)")
        }
        return whole
    }

    func scan(_ bytes: [UInt8], maximumDepth: Int, window: Int?) -> (tokens: [String], error: XMLSyntaxError?) {
        var tokens: [String] = []
        let body = { (scanner: inout XMLScanner) -> XMLSyntaxError? in
            do throws(XMLSyntaxError) {
                while let token = try scanner.next() {
                    switch token {
                    case let .startElement(name):
                        let attributes = scanner.attributes.map { " \(string($0.name))=\(scanner.decodedValue($0))" }
                        tokens.append("<\(string(name))\(attributes.joined())>")
                    case let .endElement(name):
                        tokens.append("</\(string(name))>")
                    case let .text(bytes):
                        if let last = tokens.last, last.hasPrefix("\"") {
                            tokens[tokens.count - 1] = String(last.dropLast()) + string(bytes) + "\""
                        } else {
                            tokens.append("\"" + string(bytes) + "\"")
                        }
                    }
                }
                return nil
            } catch {
                return error
            }
        }
        guard let window else {
            let error = XMLScanner.scan(bytes, maximumDepth: maximumDepth, body)
            return (tokens, error)
        }
        var offset = 0
        let error = XMLScanner.scan(reading: { buffer in
            // Hands out at most 5 bytes a call, so that the window is filled in several reads.
            let count = min(5, buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
            offset += count
            return count
        }, window: window, maximumDepth: maximumDepth, body)
        return (tokens, error)
    }

    func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test("Elements, attributes in either quotes, self-closing tags and text")
    func elements() {
        let result = scan(#"<a x="1" y='two'><b/>hi<c z = "3" /></a>"#)
        #expect(result.error == nil)
        #expect(result.tokens == ["<a x=1 y=two>", "<b>", "</b>", "\"hi\"", "<c z=3>", "</c>", "</a>"])
    }

    @Test("Namespace prefixes stay in the name; localName drops them")
    func namespaces() {
        let xml = #"<gpx xmlns:gpxtpx="urn:x"><gpxtpx:speed>1</gpxtpx:speed></gpx>"#
        #expect(scan(xml).tokens == ["<gpx xmlns:gpxtpx=urn:x>", "<gpxtpx:speed>", "\"1\"", "</gpxtpx:speed>", "</gpx>"])
        let name = Array("gpxtpx:speed".utf8)
        name.withUnsafeBufferPointer { #expect(string(XMLScanner.localName($0)) == "speed") }
        Array("speed".utf8).withUnsafeBufferPointer { #expect(string(XMLScanner.localName($0)) == "speed") }
    }

    @Test("The five predefined entities and character references, in text and attribute values")
    func entities() {
        let result = scan(#"<a v="&lt;&#65;&#x42;&quot;&apos;">&lt;&gt;&amp;&apos;&quot; &#65;&#x41;&#x1F600;</a>"#)
        #expect(result.error == nil)
        #expect(result.tokens == [#"<a v=<AB"'>"#, "\"<>&'\" AA😀\"", "</a>"])
    }

    @Test("Line ends are normalised in text; white space becomes spaces in attribute values")
    func whitespace() {
        let result = scan("<a v=\"1\r\n2\t3\">x\r\ny\rz</a>")
        #expect(result.tokens == ["<a v=1 2 3>", "\"x\ny\nz\"", "</a>"])
    }

    @Test("CDATA sections are text, read as written")
    func cdata() {
        let result = scan("<a>1<![CDATA[<b>&amp;]]>2<![CDATA[]]></a>")
        #expect(result.error == nil)
        #expect(result.tokens == ["<a>", "\"1<b>&amp;2\"", "</a>"])
    }

    @Test("Comments, processing instructions and the XML declaration are skipped")
    func skipped() {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="no" ?>
            <!-- before -->
            <?stylesheet href="x"?>
            <a>1<!-- inside - with a dash -->2<?pi data?>3</a>
            <!-- after -->
            <?after?>

            """
        let result = scan(xml)
        #expect(result.error == nil)
        #expect(result.tokens == ["<a>", "\"123\"", "</a>"])
    }

    @Test("A DOCTYPE is skipped whole, and the entities it declares are never expanded")
    func doctype() {
        let doctype = #"<!DOCTYPE gpx SYSTEM "http://example.com/x.dtd" [ <!ENTITY e "boom"> <!-- ] > --> <?pi ]?> ]>"#
        #expect(scan(doctype + "<gpx>1</gpx>").tokens == ["<gpx>", "\"1\"", "</gpx>"])
        #expect(scan(doctype + "<gpx>1</gpx>").error == nil)
        let expanded = scan(doctype + "\n<gpx>&e;</gpx>")
        #expect(expanded.error?.line == 2)
        #expect(expanded.error?.reason.contains("unknown entity '&e;'") == true)
    }

    @Test("A UTF-8 byte-order mark is skipped; UTF-16 with a byte-order mark is read")
    func encodings() {
        #expect(scan([0xEF, 0xBB, 0xBF] + Array("<a>é</a>".utf8)).tokens == ["<a>", "\"é\"", "</a>"])
        let xml = #"<?xml version="1.0" encoding="UTF-16"?><a x="é">1</a>"#
        let little: [UInt8] = [0xFF, 0xFE] + xml.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let big: [UInt8] = [0xFE, 0xFF] + xml.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(scan(little).tokens == ["<a x=é>", "\"1\"", "</a>"])
        #expect(scan(big).tokens == ["<a x=é>", "\"1\"", "</a>"])
        #expect(scan(little).error == nil)
        // A character outside the BMP is a surrogate pair; read as a stream, 5 bytes a read, the
        // pair and the units are split between reads, and an odd last byte is an invalid one.
        let astral = #"<a x="😀">é😀</a>"#
        let astralLittle: [UInt8] = [0xFF, 0xFE] + astral.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(scan(astralLittle).tokens == ["<a x=😀>", "\"é😀\"", "</a>"])
        #expect(scan(astralLittle + [0x20]).error?.reason == "text after the root element")
    }

    @Test("Invalid UTF-8 is passed on as bytes, never decoded")
    func invalidUTF8() {
        let result = scan(Array("<a\u{FF}>".utf8.prefix(2)) + [0xFF, 0x3E, 0xC3, 0x28, 0x3C, 0x2F, 0x61, 0xFF, 0x3E])
        #expect(result.error == nil)
        #expect(result.tokens.count == 3)
    }

    @Test("Nesting far deeper than a GPX file's is read without recursion; the depth limit is an error")
    func deepNesting() {
        let depth = 10_000
        let deep = String(repeating: "<a>", count: depth) + "x" + String(repeating: "</a>", count: depth)
        let result = scan(deep, maximumDepth: depth)
        #expect(result.error == nil)
        #expect(result.tokens.count == 2 * depth + 1)
        let limited = scan(String(repeating: "<a>\n", count: 1025) + String(repeating: "</a>", count: 1025))
        #expect(limited.error == XMLSyntaxError(line: 1025, reason: "elements nested deeper than 1024"))
        #expect(scan(String(repeating: "<a>", count: 1024) + String(repeating: "</a>", count: 1024)).error == nil)
    }

    @Test(
        "Each well-formedness error is reported with its line and reason",
        arguments: [
            ("<a>\n<b>\n</c></a>", 3, "mismatched end tag: expected </b>, found </c>"),
            ("<a>\n<b x=\"1\"", 2, "the document ends inside an unterminated start tag <b> (it begins on line 2)"),
            ("<a>\n<!-- x\n", 3, "the document ends inside an unterminated comment (it begins on line 2)"),
            ("<a>\n<![CDATA[ x", 2, "the document ends inside an unterminated CDATA section (it begins on line 2)"),
            ("<a>\n<b x=\"1>", 2, "the document ends inside an unterminated value of attribute 'x' (it begins on line 2)"),
            ("<a>\n<?pi x", 2, "the document ends inside an unterminated processing instruction (it begins on line 2)"),
            ("<!DOCTYPE a [\n", 2, "the document ends inside an unterminated DOCTYPE (it begins on line 1)"),
            ("<a>\n<b>\n</b>\n", 4, "the document ends before its closing tags (<a> still open)"),
            ("<a>\n</a>\nx", 3, "text after the root element"),
            ("x<a/>", 1, "text before the root element"),
            ("<a/>\n<b/>", 2, "a second element after the root element"),
            ("<a>\n<b x=\"1\"y=\"2\"/></a>", 2, "bad attribute syntax in <b>: attributes must be separated by white space"),
            ("<a>\n<b x/></a>", 2, "bad attribute syntax: attribute 'x' has no '=' and value"),
            ("<a>\n<b x=1/></a>", 2, "bad attribute syntax: the value of 'x' is not in quotes"),
            ("<a>\n<b =\"1\"/></a>", 2, "bad attribute syntax in <b>: expected an attribute name, '>' or '/>'"),
            ("<a>\n<b x=\"<\"/></a>", 2, "'<' in the value of attribute 'x'"),
            ("<a>\n<b x=\"1\"\n x='2'/></a>", 3, "duplicate attribute 'x'"),
            ("<a>\n&nbsp;</a>", 2, "an unknown entity '&nbsp;' (only &lt; &gt; &amp; &apos; &quot; and character references are read; no DTD entity is expanded)"),
            ("<a>\nAT&T</a>", 2, "'&' not followed by an entity or character reference ending in ';' (write '&amp;')"),
            ("<a>\n&#0;</a>", 2, "a character reference '&#0;' to no allowed character"),
            ("<a>\n<b x=\"&bad;\"/></a>", 2, "an unknown entity '&bad;' (only &lt; &gt; &amp; &apos; &quot; and character references are read; no DTD entity is expanded)"),
            ("<a>\nx]]>y</a>", 2, "']]>' in text outside a CDATA section"),
            ("<a>\n<!-- a -- b --></a>", 2, "'--' inside a comment"),
            ("<a>\n\u{7}</a>", 2, "the control character U+0007, which XML does not allow"),
            ("<a>\n<b\u{0}", 2, "the control character U+0000, which XML does not allow"),
            ("\n<?xml version=\"1.0\"?><a/>", 2, "an XML declaration that is not at the very start of the document"),
            ("<?xml version=\"2.0\"?><a/>", 1, "an unsupported XML version '2.0'"),
            ("<?xml encoding=\"UTF-8\"?><a/>", 1, "a malformed XML declaration: unexpected 'encoding'"),
            ("<?xml version=\"1.0\" encoding=\"EBCDIC\"?><a/>", 1, "an unsupported encoding 'EBCDIC' (this reader reads UTF-8, UTF-16 with a byte-order mark and ASCII-compatible encodings)"),
            ("<a>\n< b/></a>", 2, "'<' not followed by an element name"),
            ("<a>\n</a x>", 2, "an end tag </a> with more than a name"),
            ("</a>", 1, "an end tag </a> outside the root element"),
            ("<!-- only a comment -->\n", 2, "the document has no root element"),
            ("<a>\n<!foo></a>", 2, "'<!' that starts no comment, CDATA section or DOCTYPE"),
            ("<![CDATA[x]]><a/>", 1, "a CDATA section outside the root element"),
            ("<a/>\n<!DOCTYPE a>", 2, "a DOCTYPE after the root element started"),
        ] as [(String, Int, String)]
    )
    func wellFormednessErrors(xml: String, line: Int, reason: String) {
        let result = scan(xml)
        #expect(result.error == XMLSyntaxError(line: line, reason: reason))
    }

    @Test("An error ends the scan after the tokens before it")
    func stopsAtFirstError() {
        let result = scan("<a><b>1</b>\n<c></d>")
        #expect(result.tokens == ["<a>", "<b>", "\"1\"", "</b>", "\"\n\"", "<c>"])
        #expect(result.error?.line == 2)
    }
}
