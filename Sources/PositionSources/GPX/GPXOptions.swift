/// Options for reading GPX files.
public struct GPXOptions: Sendable, Hashable {
    /// Metres of accuracy per unit of `<hdop>` (or `<pdop>` when there is no HDOP); see
    /// ``DilutionOfPrecision``. Default 5 m.
    var uere: Double

    /// Creates options; every argument has a default.
    public init(uere: Double = DilutionOfPrecision.defaultUERE) {
        self.uere = uere
    }
}
