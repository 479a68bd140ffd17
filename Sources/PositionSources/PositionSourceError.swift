#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a position source could not run at all (as opposed to input it skipped, which is counted in
/// ``SourceRejections``).
public enum PositionSourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file or device at `path` could not be opened or read; `reason` is the system's message.
    case cannotRead(path: String, reason: String)
    /// The serial device at `path` could not be configured (baud rate, raw mode).
    case cannotConfigureSerial(path: String, reason: String)
    /// The host name could not be resolved.
    case cannotResolve(host: String, reason: String)
    /// A replayed recording whose first fix is later than the current time: it cannot have been
    /// recorded yet (the recording device's clock was wrong, or the file was made up).
    case recordingInFuture(start: Date, now: Date)

    /// A sentence a user can act on.
    public var description: String {
        switch self {
        case let .cannotRead(path, reason):
            "Cannot read '\(path)': \(reason). Check that the path exists and is readable."
        case let .cannotConfigureSerial(path, reason):
            "Cannot configure the serial device '\(path)': \(reason). Check the device and the baud rate."
        case let .cannotResolve(host, reason):
            "Cannot resolve the gpsd host '\(host)': \(reason). Check the host name in the source address."
        case let .recordingInFuture(start, now):
            "The recording starts at \(start.formatted(.iso8601)), later than the current time \(now.formatted(.iso8601)): "
                + "it cannot be a recording of the past. Check the clock of the device that recorded it, or correct the timestamps in the file."
        }
    }
}
