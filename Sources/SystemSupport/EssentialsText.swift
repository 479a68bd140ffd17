#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

// What the publisher's modules used from full Foundation, on FoundationEssentials and the C
// library: whereabouts-pub links FoundationEssentials only (without
// FoundationInternationalization and ICU's data table; BENCHMARKS.md, "Binary size"). The text
// helpers of the same kind are in WhereaboutsCore (Text/EssentialsText.swift).

/// Paths as text, as Foundation's `NSString` path methods treated them.
package enum PathText {
    /// The folder part of `path` (`NSString.deletingLastPathComponent`): "" for a bare file
    /// name, "/" for a file in the root; trailing slashes ignored.
    package static func folder(of path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        var folder = path[..<slash]
        while folder.count > 1, folder.hasSuffix("/") { folder = folder.dropLast() }
        return folder.isEmpty ? "/" : String(folder)
    }

    /// `name` inside `folder` (`NSString.appendingPathComponent`): one slash between them,
    /// `name` alone when `folder` is empty.
    package static func appending(_ name: String, to folder: String) -> String {
        guard !folder.isEmpty else { return name }
        var base = Substring(folder)
        while base.count > 1, base.hasSuffix("/") { base = base.dropLast() }
        let tail = name.drop { $0 == "/" }
        return base == "/" ? "/" + tail : base + "/" + tail
    }
}

/// Why a file could not be read or written, as a short sentence: the system's message for the
/// `errno` behind the error (`strerror`, "No such file or directory"), else the error itself.
/// FoundationEssentials has no `localizedDescription`.
package func fileErrorReason(_ error: any Error) -> String {
    if let error = error as? CocoaError, let underlying = error.underlying as? POSIXError {
        return String(cString: strerror(underlying.code.rawValue))
    }
    if let error = error as? POSIXError { return String(cString: strerror(error.code.rawValue)) }
    if let error = error as? CocoaError {
        return switch error.code {
        case .fileReadNoSuchFile, .fileNoSuchFile: "No such file or directory"
        case .fileReadNoPermission, .fileWriteNoPermission: "Permission denied"
        case .fileReadInapplicableStringEncoding: "not valid text in the expected encoding"
        default: "\(error)"
        }
    }
    return "\(error)"
}

extension StringProtocol {
    /// The text with its `%XX` escapes decoded, as Foundation's `removingPercentEncoding` gave it:
    /// `nil` when a `%` is not followed by two hexadecimal digits or the bytes are not UTF-8.
    package func percentDecoded() -> String? {
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
