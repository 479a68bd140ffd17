#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WhereaboutsCore

/// Replays another source's recorded fixes at real time, N times faster, or as fast as possible,
/// and keeps a ``ReplayFixClock`` at the time of the fix being replayed.
///
/// Give ``clock`` to the rejection filters and the reporting policy: they then judge "too old" or
/// "`maxSilence` passed" by recorded time, exactly as they would have live. Pacing waits with
/// `Task.sleep` on the continuous clock, relative to the first paced fix, so delays do not
/// accumulate. Cancelling the consumer's task ends the replay.
///
/// Faults in the recording:
/// - A fix dated later than the fix after it (a clock glitch: one fix of 2030 in a 2019 track) is
///   out of order. It is handed on at once, without waiting for its time and without moving the
///   clock, so the filters reject it as `future` and the rest of the track replays as recorded.
///   (The replay reads one fix ahead to tell.)
/// - A fix older than the one before it is handed on at once.
/// - A recording that starts later than the wall clock (by more than ``futureLead``) cannot be
///   a recording: the iterator throws ``PositionSourceError/recordingInFuture(start:now:)``.
/// - Fixes before ``resumeAfter`` (what an earlier run already committed) are handed on at once:
///   a restarted replay continues where it stopped instead of waiting through the part already
///   sent. Pacing starts at the first fix after it.
struct ReplaySource<Base: PositionSource>: PositionSource {
    /// The source replayed.
    let base: Base
    /// How fast.
    let speed: ReplaySpeed
    /// "Now" for filters and policies: the time of the latest fix handed on.
    let clock: ReplayFixClock
    /// Fixes before this time are handed on without waiting (a resumed replay).
    let resumeAfter: Date?
    /// How far ahead of the wall clock a recording may start before it is refused.
    static var futureLead: TimeInterval { 3600 }

    /// Replays `base` at `speed`, advancing `clock` (a new one by default).
    init(_ base: Base, speed: ReplaySpeed, clock: ReplayFixClock = ReplayFixClock(), resumeAfter: Date? = nil) {
        self.base = base
        self.speed = speed
        self.clock = clock
        self.resumeAfter = resumeAfter
    }

    /// The replayed source's rejection tally.
    var rejections: RejectionCounter { base.rejections }

    /// Starts the replay.
    func makeAsyncIterator() -> FixIterator {
        var iterator = base.makeAsyncIterator()
        let (pace, clock, resumeAfter) = (speed.wallSecondsPerFixSecond, clock, resumeAfter)
        var origin: (fixTime: Double, wall: ContinuousClock.Instant)?
        var ahead: Fix?
        var started = false
        var checkedStart = false
        return FixIterator {
            if !started {
                started = true
                ahead = try await iterator.next()
            }
            guard let fix = ahead else { return nil }
            ahead = try await iterator.next()
            if let next = ahead, next.time < fix.time {
                return fix  // out of order: neither waited for nor moving the clock
            }
            if !checkedStart {
                checkedStart = true
                let now = Date()
                if fix.time.timeIntervalSince(now) > Self.futureLead {
                    throw PositionSourceError.recordingInFuture(start: fix.time, now: now)
                }
            }
            if let resumeAfter, fix.time < resumeAfter {
                clock.advance(to: fix.time)
                return fix
            }
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
