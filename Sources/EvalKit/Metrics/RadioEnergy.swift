/// SPEC §5's radio cost model: a report more than `tail` seconds after the previous one wakes a
/// cellular radio; each wake-up costs a promotion plus a full tail at tail power (AT&T ARO's LTE
/// figures: 0.31 J + 1.06 W x 10 s, about 10.9 J).
package struct RadioEnergy: Sendable, Hashable, Codable {
    /// The LTE tail in seconds: a report within this time of the previous one finds the radio awake.
    package var tail: Double
    /// Energy of one promotion from idle, in joules.
    package var promotionEnergy: Double
    /// Radio power during the tail, in watts.
    package var tailPower: Double

    /// Creates the model; the defaults are SPEC §5's (10 s, 0.31 J, 1.06 W).
    package init(tail: Double = 10, promotionEnergy: Double = 0.31, tailPower: Double = 1.06) {
        self.tail = tail
        self.promotionEnergy = promotionEnergy
        self.tailPower = tailPower
    }

    /// The energy of one wake-up in joules.
    package var energyPerWakeUp: Double { promotionEnergy + tailPower * tail }

    /// Whether a report `gap` seconds after the previous one (nil for the first) wakes the radio.
    package func wakesUp(afterGap gap: Double?) -> Bool {
        gap.map { $0 > tail } ?? true
    }
}
