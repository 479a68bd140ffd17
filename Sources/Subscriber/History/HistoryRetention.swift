/// How long the history keeps locations, and how large it may grow.
package struct HistoryRetention: Sendable, Equatable {
    /// Days a location is kept after its `tst`, for members of circles without their own rule;
    /// `0` keeps locations for ever. Default 30.
    package var days: Int
    /// Days per circle id, overriding ``days``. A member of several circles keeps its locations
    /// for the longest of its circles' periods (the data is the member's, stored once).
    package var circleDays: [String: Int]
    /// The most bytes of data the file may hold; past it the oldest locations go first.
    /// `nil`: no cap.
    package var maxBytes: Int?
    /// How often, in seconds, retention and the cap are applied. Default 60 s.
    package var interval: Double

    /// Creates a rule; every argument has the documented default.
    package init(days: Int = 30, circleDays: [String: Int] = [:], maxBytes: Int? = nil, interval: Double = 60) {
        self.days = days
        self.circleDays = circleDays
        self.maxBytes = maxBytes
        self.interval = interval
    }

    /// The days `member`'s locations are kept, given the circles it belongs to (none: ``days``);
    /// `0` means for ever.
    func days(forCircles circles: [String]) -> Int {
        let periods = circles.map { circleDays[$0] ?? days }
        if periods.isEmpty { return days }
        return periods.contains(0) ? 0 : periods.max() ?? days
    }
}
