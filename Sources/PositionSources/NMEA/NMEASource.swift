#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import WhereaboutsCore

/// Fixes from NMEA 0183 sentences read from a file, a pipe, standard input or a serial device.
///
/// Reads RMC, GGA, GSA and VTG from any talker (GP, GN, GL, GA, BD, ...), verifies every
/// checksum, and assembles the sentences of one epoch into one fix (see ``NMEAFile`` and
/// ``NMEAOptions``). A tty is put into raw mode at ``NMEAOptions/baudRate``. Reading happens on a
/// dedicated thread; the source ends at the end of a file or when the device or pipe closes.
public struct NMEASource: PositionSource {
    /// Where the sentences come from.
    public enum Input: Sendable, Hashable, CustomStringConvertible {
        /// A file, named pipe or device path (a tty is configured as a serial port).
        case path(String)
        /// The process's standard input.
        case standardInput

        /// The path, or `-` for standard input.
        public var description: String {
            switch self {
            case let .path(path): path
            case .standardInput: "-"
            }
        }
    }

    /// Where this source reads.
    public let input: Input
    /// How sentences become fixes.
    public let options: NMEAOptions
    /// The input this source skipped, by reason.
    public let rejections: RejectionCounter
    private let logger: Logger

    /// Creates a source reading `input`.
    public init(input: Input, options: NMEAOptions = NMEAOptions(), logger: Logger) {
        self.input = input
        self.options = options
        self.logger = logger
        rejections = RejectionCounter(source: "nmea", logger: logger)
    }

    /// Opens the input and starts reading.
    public func makeAsyncIterator() -> FixIterator {
        let (input, options, rejections, logger) = (input, options, rejections, logger)
        return FixEmitter.threadedIterator(name: "whereabouts.nmea") { emitter in
            let (descriptor, ownsDescriptor) = try Self.open(input, options: options, logger: logger)
            defer { if ownsDescriptor { close(descriptor) } }
            var reader = DescriptorLineReader(descriptor: descriptor)
            var assembler = NMEAEpochAssembler(options: options, rejections: rejections, label: input.description)
            var quietFor = 0.0
            let tick = Swift.min(0.1, options.epochIdleTimeout)
            while !emitter.isCancelled {
                switch try reader.next(timeout: tick) {
                case let .line(line):
                    quietFor = 0
                    assembler.consume(line) { emitter.yield($0) }
                case .oversize:
                    assembler.rejectOversizeLine()
                case .idle:
                    quietFor += tick
                    if quietFor >= options.epochIdleTimeout { assembler.flushIdle { emitter.yield($0) } }
                case .end:
                    assembler.finish { emitter.yield($0) }
                    return
                }
            }
        }
    }

    private static func open(_ input: Input, options: NMEAOptions, logger: Logger) throws(PositionSourceError) -> (Int32, Bool) {
        guard case let .path(path) = input else { return (STDIN_FILENO, false) }
        let descriptor = openForReading(path)
        guard descriptor >= 0 else { throw .cannotRead(path: path, reason: String(cString: strerror(errno))) }
        if isatty(descriptor) == 1 {
            do {
                try SerialPort.configure(descriptor: descriptor, path: path, baudRate: options.baudRate)
            } catch {
                close(descriptor)
                throw error
            }
            logger.info("Reading NMEA from a serial device", metadata: [
                "whereabouts.source.path": "\(path)", "whereabouts.source.baud": "\(options.baudRate)",
            ])
        }
        return (descriptor, true)
    }
}

/// `open(2)` for reading without becoming the controlling terminal; outside the source type, whose
/// own members would shadow the C function.
private func openForReading(_ path: String) -> Int32 {
    open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
}
