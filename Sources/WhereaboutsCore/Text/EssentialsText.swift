// What the publisher's modules used from full Foundation for text, on the standard library:
// whereabouts-pub links FoundationEssentials only, which has no `trimmingCharacters(in:)` and
// no `String(format:)` (BENCHMARKS.md, "Binary size"). The path and error helpers of the same
// kind are in SystemSupport (EssentialsText.swift).

extension StringProtocol {
    /// The text without the spaces and tabs at either end: what Foundation's
    /// `trimmingCharacters(in: .whitespaces)` removes (Unicode category Zs and U+0009).
    package func trimmingSpaces() -> String {
        trimming { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// The text without white space and line ends at either end: what Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` removes (Unicode categories Z*,
    /// U+000A to U+000D and U+0085).
    package func trimmingWhitespaceAndNewlines() -> String {
        trimming { scalar in
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: true
            default: (0x09...0x0D).contains(scalar.value) || scalar.value == 0x85
            }
        }
    }

    private func trimming(_ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
              let last = scalars.lastIndex(where: { !isTrimmed($0) }) else { return "" }
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: scalars[first...last])
        return String(kept)
    }
}

/// `value` as 8 lowercase hexadecimal digits, zero-padded (what `String(format: "%08x")` printed).
package func hex8(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
}
