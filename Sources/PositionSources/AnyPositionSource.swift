import WhereaboutsCore

/// Any ``PositionSource`` behind one concrete type, for code that picks its source at run time
/// (the publisher's `--source` flag).
public struct AnyPositionSource: PositionSource {
    private let base: any PositionSource

    /// Wraps `base`.
    public init(_ base: some PositionSource) {
        self.base = base
    }

    /// The wrapped source's rejection tally.
    public var rejections: RejectionCounter { base.rejections }

    /// Starts the wrapped source.
    public func makeAsyncIterator() -> FixIterator { base.makeAsyncIterator() }
}
