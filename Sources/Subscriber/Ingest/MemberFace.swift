import SystemSupport
import WhereaboutsCore

/// A member's face image from an OwnTracks `card`, kept once per member and served over HTTP.
package struct MemberFace: Sendable, Hashable {
    /// The image bytes (decoded from the card's base64 `face`).
    package var data: [UInt8]
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`, from the image's first bytes.
    package var contentType: String
    /// A short hash of the bytes (16 hex digits of FNV-1a 64): the image's HTTP `ETag` and the
    /// `face` value in views, so a dashboard's cached copy stays valid until the face changes.
    package var tag: String

    /// Wraps `data`, or returns `nil` when it is not a PNG, JPEG, GIF or WebP image.
    package init?(data: [UInt8]) {
        guard let type = Self.contentType(of: data) else { return nil }
        self.data = data
        self.contentType = type
        let hex = String(FNV1a.hash(data), radix: 16)
        self.tag = String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static func contentType(of data: [UInt8]) -> String? {
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if data.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if data.count >= 12, data.starts(with: Array("RIFF".utf8)), Array(data[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        return nil
    }
}
