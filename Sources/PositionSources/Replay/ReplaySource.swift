import WhereaboutsCore

/// Replays another source's recorded fixes at real time, N times faster, or as fast as possible,
/// and keeps a ``ReplayFixClock`` at the time of the fix being replayed.
///
/// Give ``clock`` to the rejection filters and the reporting policy: they then judge "too old" or
/// "`maxSilence` passed" by recorded time, exactly as they would have live. Pacing waits with
/// `Task.sleep` on the continuous clock, relative to the first fix, so delays do not accumulate;
/// a fix older than the one before it is handed on at once. Cancelling the consumer's task ends
/// the replay.
public struct ReplaySource<Base: PositionSource>: PositionSource {
    /// The source replayed.
    public let base: Base
    /// How fast.
    public let speed: ReplaySpeed
    /// "Now" for filters and policies: the time of the latest fix handed on.
    public let clock: ReplayFixClock

    /// Replays `base` at `speed`, advancing `clock` (a new one by default).
    public init(_ base: Base, speed: ReplaySpeed, clock: ReplayFixClock = ReplayFixClock()) {
        self.base = base
        self.speed = speed
        self.clock = clock
    }

    /// The replayed source's rejection tally.
    public var rejections: RejectionCounter { base.rejections }

    /// Starts the replay.
    public func makeAsyncIterator() -> FixIterator {
        var iterator = base.makeAsyncIterator()
        let (pace, clock) = (speed.wallSecondsPerFixSecond, clock)
        var origin: (fixTime: Double, wall: ContinuousClock.Instant)?
        return FixIterator {
            guard let fix = try await iterator.next() else { return nil }
            if let pace {
                let fixTime = fix.time.timeIntervalSince1970
                if let origin {
                    let offset = (fixTime - origin.fixTime) * pace
                    if offset > 0 {
                        try await Task.sleep(until: origin.wall + .seconds(offset), clock: .continuous)
                    }
                } else {
                    origin = (fixTime, ContinuousClock.now)
                }
            }
            clock.advance(to: fix.time)
            return fix
        }
    }
}
