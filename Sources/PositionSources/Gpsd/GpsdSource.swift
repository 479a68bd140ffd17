#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging
import WhereaboutsCore

/// Fixes from a gpsd daemon: TPV reports with a 2D or 3D fix, over gpsd's JSON protocol.
///
/// Connects to ``GpsdOptions/host``:``GpsdOptions/port``, sends
/// `?WATCH={"enable":true,"json":true}` and turns each TPV report (mode 2 or 3) into a fix; see
/// `GpsdReport.interpret` for the field mapping. gpsd sends several TPVs per epoch as sentences
/// arrive; only the first with a given time is issued. When gpsd goes away (restart, crash) the
/// source reconnects after ``GpsdOptions/initialReconnectDelay``, doubling the wait up to
/// ``GpsdOptions/maximumReconnectDelay``, for as long as the consumer iterates. The socket is read
/// on a dedicated thread.
struct GpsdSource: PositionSource {
    /// Where to connect.
    let options: GpsdOptions
    /// The reports this source skipped, by reason.
    let rejections: RejectionCounter
    private let logger: Logger

    /// The command that asks gpsd to stream JSON reports.
    static let watchCommand = #"?WATCH={"enable":true,"json":true}"# + "\n"

    /// Creates a source for the gpsd at `options.host:options.port`.
    init(options: GpsdOptions = GpsdOptions(), logger: Logger) {
        self.options = options
        self.logger = logger
        rejections = RejectionCounter(source: "gpsd", logger: logger)
    }

    /// Connects and starts streaming; the connection closes when the iteration ends.
    func makeAsyncIterator() -> FixIterator {
        let (options, rejections, logger) = (options, rejections, logger)
        return FixEmitter.threadedIterator(name: "whereabouts.gpsd") { emitter in
            Self.run(options: options, rejections: rejections, logger: logger, emitter: emitter)
        }
    }

    private static func run(options: GpsdOptions, rejections: RejectionCounter, logger: Logger, emitter: FixEmitter) {
        let address = "\(options.host):\(options.port)"
        var logger = logger
        logger[metadataKey: "whereabouts.gpsd"] = "\(address)"
        var delay = options.initialReconnectDelay
        var lastTime: Date?
        while !emitter.isCancelled {
            do {
                let connection = try GpsdConnection(host: options.host, port: options.port, timeout: options.connectTimeout)
                try connection.send(watchCommand)
                logger.info("Connected to gpsd")
                delay = options.initialReconnectDelay
                var reader = DescriptorLineReader(descriptor: connection.descriptor, maximumLineLength: 65_536)
                reading: while !emitter.isCancelled {
                    switch try reader.next(timeout: 0.1) {
                    case let .line(line):
                        switch GpsdReport.interpret(line) {
                        case let .fix(fix):
                            guard fix.time != lastTime else { continue }
                            lastTime = fix.time
                            emitter.yield(fix)
                        case .other:
                            break
                        case let .rejected(reason):
                            rejections.record(reason, at: address)
                        }
                    case .oversize:
                        rejections.record(.oversizeLine, at: address)
                    case .idle:
                        break
                    case .end:
                        logger.info("gpsd closed the connection")
                        break reading
                    }
                }
            } catch {
                logger.info("gpsd is not reachable", metadata: ["whereabouts.error": "\(error)"])
            }
            guard !emitter.isCancelled else { return }
            logger.info("Reconnecting to gpsd", metadata: ["whereabouts.gpsd.delay": "\(delay)"])
            if emitter.wait(seconds: delay) { return }
            delay = Swift.min(delay * 2, options.maximumReconnectDelay)
        }
    }
}
