/// Options for reading NMEA 0183.
public struct NMEAOptions: Sendable, Hashable {
    /// Metres of accuracy per unit of HDOP (and of VDOP for the vertical accuracy); see
    /// ``DilutionOfPrecision``. Default 5 m.
    var uere: Double
    /// The serial line speed set on a tty device (ignored for files, pipes and stdin). Default
    /// 4800 baud, the NMEA 0183 standard rate; many modern receivers use 9600 or more.
    var baudRate: Int
    /// Seconds without input after which the sentences read so far are issued as a fix rather than
    /// waiting for the next epoch to begin (live sources only). Default 0.3 s.
    var epochIdleTimeout: Double

    /// Whether an epoch without an RMC sentence (GGA only) is dated with the date of the last RMC.
    /// Default `false`: the date, and the receiver's "valid" status, come from the epoch's own RMC,
    /// so a GGA-only epoch is skipped as ``SourceRejectionReason/missingDate``. Set it for receivers that
    /// send RMC rarely; a date carried across a long gap is rolled over at midnight but cannot
    /// notice a gap of more than a day.
    var carryDate: Bool

    /// Creates options; every argument has a default.
    public init(
        uere: Double = DilutionOfPrecision.defaultUERE,
        baudRate: Int = 4800,
        epochIdleTimeout: Double = 0.3,
        carryDate: Bool = false
    ) {
        self.uere = uere
        self.baudRate = baudRate
        self.epochIdleTimeout = epochIdleTimeout
        self.carryDate = carryDate
    }
}
