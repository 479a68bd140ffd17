import Subscriber
import NIOCore

/// A circle view encoded once as the JSON text every WebSocket client is sent; the bytes are
/// shared (copy on write), never copied per client.
struct EncodedView: Sendable {
    /// The circle the view belongs to.
    let circleID: String
    /// When the view was computed; views of one circle are only ever replaced by newer ones.
    let generatedAt: Double
    /// The JSON, exactly as `GET /api/circles/<id>` serves it.
    let json: ByteBuffer

    /// Encodes `view`.
    init(_ view: CircleView) throws {
        circleID = view.circle.id
        generatedAt = view.generatedAt
        json = ByteBuffer(bytes: try JSONBody.data(view))
    }
}
