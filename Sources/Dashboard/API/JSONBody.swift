import Foundation
import Hummingbird

/// Encodes API bodies: one encoder configuration for every JSON the dashboard serves.
enum JSONBody {
    /// Encodes `value` as a JSON response with `status`.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        Response(
            status: status,
            headers: [.contentType: ResponseHeaderValues.json, .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encode(value)))
        )
    }

    /// Encodes `value` as JSON text, as pushed over the WebSocket.
    static func string(_ value: some Encodable) throws -> String {
        String(decoding: try encode(value), as: UTF8.self)
    }

    /// Encodes `value` as JSON bytes.
    static func data(_ value: some Encodable) throws -> Data {
        try encode(value)
    }

    private static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
