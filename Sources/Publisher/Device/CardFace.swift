#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// Reads the picture of the publisher's card (`--card-face`): a PNG or JPEG file, checked by its
/// first bytes and its size, base64-encoded for the card's `face`.
package enum CardFace {
    /// The largest picture accepted, 192 KiB: base64 makes it at most 256 KiB, the most a
    /// Whereabouts subscriber accepts as a face.
    package static let maxBytes = 192 * 1024

    /// Why a face file was refused.
    package enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file cannot be read.
        case unreadable(path: String, reason: String)
        /// The file is empty or larger than ``CardFace/maxBytes``.
        case size(path: String, bytes: Int)
        /// The file is neither PNG nor JPEG.
        case notAnImage(path: String)

        /// A sentence naming the file and what to do.
        package var description: String {
            switch self {
            case let .unreadable(path, reason):
                "--card-face \(path) cannot be read: \(reason)."
            case let .size(path, bytes):
                "--card-face \(path) is \(bytes) bytes; a face must be 1 byte to \(CardFace.maxBytes / 1024) KiB (scale it down, e.g. to 128x128 pixels)."
            case let .notAnImage(path):
                "--card-face \(path) is not a PNG or JPEG image; the OwnTracks apps show only those."
            }
        }
    }

    /// The base64 text of the picture at `path`.
    package static func load(path: String) throws(Problem) -> String {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: fileErrorReason(error))
        }
        guard (1...maxBytes).contains(data.count) else { throw .size(path: path, bytes: data.count) }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]
        guard data.starts(with: png) || data.starts(with: jpeg) else { throw .notAnImage(path: path) }
        return data.base64EncodedString()
    }
}
