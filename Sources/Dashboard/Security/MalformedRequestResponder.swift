import NIOCore
import NIOHTTP1

/// Answers a request that HTTP/1 decoding refuses, and closes the connection: 414 for a request
/// line longer than the decoder takes, 431 for too many or too large header fields, 400 for
/// anything else it cannot parse (a garbage request line).
///
/// Hummingbird sets NIO's HTTP pipeline up without NIO's error handler ("handled by Hummingbird"),
/// but a decoding error raised before a request head exists reaches no one who answers: NIO's
/// decoder stops, and the connection was held open, silent, until the client gave up (issue 27:
/// a 100 KB path, 100 to 200 KB of headers, a garbage request line). NIO's limits (80 KB per field
/// and 80 KB for all fields, the request line counted as a field) stay as they are; what was
/// missing was the answer.
///
/// Two handlers share one ``Progress``: the ``Meter`` first in the pipeline, which sees the raw
/// bytes and so knows whether the request line was still being read when decoding failed, and
/// the ``Responder`` after the decoder, which sees the error. After answering, the meter discards
/// what the client still sends until it closes or a second passes, so that closing with unread
/// bytes does not reset the connection and wipe the answer before the client reads it.
enum MalformedRequestResponder {
    /// How long unread request bytes are drained after the answer before the connection closes.
    static let lingerTime = TimeAmount.seconds(1)

    /// Adds both handlers to `pipeline`: the meter in front of everything, the responder right
    /// after `anchor` (the HTTP decoder, or a handler behind it that passes decoding errors on).
    static func add(to pipeline: ChannelPipeline.SynchronousOperations, after anchor: ChannelHandler) throws {
        let progress = Progress()
        let meter = Meter(progress: progress)
        let responder = Responder(progress: progress, meter: meter)
        try pipeline.addHandler(meter, position: .first)
        try pipeline.addHandler(responder, position: .after(anchor))
    }

    /// The longest header field the decoder takes (Hummingbird's default `maxHeaderFieldSize`;
    /// llhttp counts the request target as a field): a request line this long overflowed as a URI.
    static let longestField = 80 * 1024

    /// What the two handlers of one connection know; touched only on its event loop.
    final class Progress {
        /// Whether the bytes read so far end inside a request line.
        var inRequestLine = true
        /// The bytes of the current request line read so far (all of it once its end is read).
        var requestLine = 0
        /// Whether an answer went out and the rest of the input is discarded.
        var discarding = false
    }

    /// Watches the raw bytes for the end of each request line; after an answer, discards input.
    final class Meter: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer

        private let progress: Progress

        init(progress: Progress) {
            self.progress = progress
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if progress.discarding { return }
            if progress.inRequestLine {
                let bytes = unwrapInboundIn(data).readableBytesView
                if let end = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                    progress.requestLine += end - bytes.startIndex
                    progress.inRequestLine = false
                } else {
                    progress.requestLine += bytes.count
                }
            }
            context.fireChannelRead(data)
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            if progress.discarding {
                context.read()  // keep draining until the client closes
                return
            }
            context.fireChannelReadComplete()
        }

        func channelInactive(context: ChannelHandlerContext) {
            // Closed from both sides after the answer: say "input closed" first, for the reason
            // given below (without it, the removal of the waiting handler is logged as an error).
            if progress.discarding { context.fireUserInboundEventTriggered(ChannelEvent.inputClosed) }
            context.fireChannelInactive()
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            context.fireUserInboundEventTriggered(event)
            // The client closed its side after the answer: done. The event went on first, so that
            // the handler waiting for a request (Hummingbird's upgrade handler) ends on "input
            // closed", which it takes quietly, rather than on removal, which it logs as an error.
            if progress.discarding, let event = event as? ChannelEvent, event == .inputClosed {
                context.close(promise: nil)
            }
        }
    }

    /// Answers decoding errors; leaves the pipeline when a request asks for a WebSocket upgrade
    /// (what follows an upgrade is not HTTP). A request decoded before the bad one keeps its
    /// answer: the error's answer waits until that response has ended, so answers stay in order.
    final class Responder: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart
        typealias OutboundIn = HTTPServerResponsePart
        typealias OutboundOut = HTTPServerResponsePart

        private let progress: Progress
        private let meter: Meter
        /// Requests passed on whose response has not ended.
        private var unanswered = 0
        /// The answer to a decoding error, waiting for the responses before it.
        private var pending: HTTPResponseStatus?

        init(progress: Progress, meter: Meter) {
            self.progress = progress
            self.meter = meter
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head) where head.headers.contains(name: "upgrade"):
                // The upgrade handler behind decides; after an upgrade these handlers would see
                // WebSocket bytes, and a refused upgrade is answered and closed by Hummingbird.
                context.fireChannelRead(data)
                _ = context.pipeline.syncOperations.removeHandler(meter)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            case .head:
                unanswered += 1
            case .end:
                progress.inRequestLine = true
                progress.requestLine = 0
            case .body:
                break
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let ended: Bool
            if case .end = unwrapOutboundIn(data) { ended = true } else { ended = false }
            context.write(data, promise: promise)
            guard ended else { return }
            unanswered = max(0, unanswered - 1)
            if unanswered == 0, let status = pending {
                pending = nil
                answer(status, context: context)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            guard let parserError = error as? HTTPParserError else {
                context.fireErrorCaught(error)
                return
            }
            guard !progress.discarding else { return }  // answered already
            progress.discarding = true
            let uriTooLong = progress.inRequestLine || progress.requestLine >= MalformedRequestResponder.longestField
            let status = Self.status(for: parserError, uriTooLong: uriTooLong)
            if unanswered > 0 {
                pending = status  // answered after the responses before it
            } else {
                answer(status, context: context)
            }
        }

        /// Writes `status` with `Connection: close`, half-closes, and closes for good after the
        /// linger time (the meter closes sooner when the client does).
        private func answer(_ status: HTTPResponseStatus, context: ChannelHandlerContext) {
            let head = HTTPResponseHead(version: .http1_1, status: status, headers: [
                "Connection": "close", "Content-Length": "0",
            ])
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            let loop = context.eventLoop.assumeIsolated()
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                context.close(mode: .output, promise: nil)
                context.read()
                loop.scheduleTask(in: MalformedRequestResponder.lingerTime) {
                    // The client did not close in time. "Input closed" first, as the meter does,
                    // so that the handlers behind end quietly, then close.
                    guard context.channel.isActive else { return }
                    context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
                    context.close(promise: nil)
                }
            }
        }

        /// The status that names what was wrong.
        static func status(for error: HTTPParserError, uriTooLong: Bool) -> HTTPResponseStatus {
            switch error {
            case .headerOverflow: uriTooLong ? .uriTooLong : .requestHeaderFieldsTooLarge
            default: .badRequest
            }
        }
    }
}
