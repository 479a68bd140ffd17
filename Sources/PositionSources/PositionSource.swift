import WhereaboutsCore

/// A source of position fixes: an async sequence of ``Fix`` values plus the tally of what it
/// rejected on the way.
///
/// Every source in this module (GPX, NMEA, gpsd, simulator, replay) conforms. Iterating starts the
/// source (opens the file, connects to gpsd); ending the iteration or cancelling the task stops it.
/// A source never yields an invalid fix: malformed input is skipped and counted in ``rejections``.
public protocol PositionSource: AsyncSequence, Sendable where Element == Fix, AsyncIterator == FixIterator {
    /// The live count of input this source skipped, by reason.
    var rejections: RejectionCounter { get }
}
