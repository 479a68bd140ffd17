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

/// The track points of a GPX 1.0 or 1.1 file as an async sequence of fixes, in file order.
///
/// The file is parsed on its own thread as the consumer iterates, at most
/// ``FixEmitter/bufferLimit`` fixes ahead of it (a slow replay holds the parser back instead of
/// buffering the whole file); stopping the iteration stops the parser. Iterating again reads the file again. Throws ``PositionSourceError`` from the iterator
/// when the file cannot be read.
public struct GPXSource: PositionSource {
    /// The file read.
    public let url: URL
    /// How DOPs become accuracies.
    public let options: GPXOptions
    /// The input this source skipped, by reason (see ``GPXFile`` for what is skipped).
    public let rejections: RejectionCounter

    /// Creates a source for the GPX file at `url`.
    public init(url: URL, options: GPXOptions = GPXOptions(), logger: Logger) {
        self.url = url
        self.options = options
        rejections = RejectionCounter(source: "gpx", logger: logger)
    }

    /// Starts reading the file.
    public func makeAsyncIterator() -> FixIterator {
        let (url, options, rejections) = (url, options, rejections)
        return FixEmitter.threadedIterator(name: "whereabouts.gpx") { emitter in
            let parser = GPXParser(options: options, rejections: rejections, label: url.lastPathComponent) { fix, _ in
                emitter.yield(fix)
            }
            // Read as a stream through a bounded window; with the bounded hand-over to the
            // consumer, memory stays flat on a file of any size.
            var reader = try FileChunkReader(path: url.path)
            defer { reader.close() }
            parser.parse(reading: { reader.read(into: $0) })
            if let failure = reader.failure { throw failure }
        }
    }
}
