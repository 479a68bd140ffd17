#if canImport(Glibc)
import Glibc
#endif
import Logging
import WhereaboutsCore

/// A fixed list of fixes as a position source (a track read with ``RecordedTrack/read(contentsOf:format:uere:logger:)``, say).
struct FixListSource: PositionSource {
    /// The fixes, in the order they are yielded.
    let fixes: [Fix]
    /// Always empty: a list of fixes has no malformed input (read the track's own `rejections`).
    let rejections: RejectionCounter

    /// Creates a source that yields `fixes` in order.
    init(fixes: [Fix], logger: Logger) {
        self.fixes = fixes
        rejections = RejectionCounter(source: "list", logger: logger)
    }

    /// Starts at the first fix.
    func makeAsyncIterator() -> FixIterator {
        var remaining = fixes[...]
        return FixIterator { remaining.popFirst() }
    }
}
