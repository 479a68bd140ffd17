/// What the sentences of one NMEA epoch (one UTC time) said, gathered before a fix is built.
struct NMEAEpoch {
    var timeOfDay: Double?
    var day: Int?
    var line = 0
    var rmcPosition: (latitude: Double, longitude: Double)?
    var ggaPosition: (latitude: Double, longitude: Double)?
    var altitude: Double?
    var rmcSpeed: Double?
    var rmcCourse: Double?
    var vtgSpeed: Double?
    var vtgCourse: Double?
    var ggaHDOP: Double?
    var gsaHDOP: Double?
    var gsaVDOP: Double?
    var gsaPDOP: Double?
    /// A sentence of this epoch said the receiver has no fix.
    var saidNoFix = false
    /// The epoch holds an RMC / a GGA already (a second one starts a new epoch).
    var hasRMC = false
    var hasGGA = false
    /// Any sentence at all was merged into this epoch.
    var isEmpty = true

    var position: (latitude: Double, longitude: Double)? { rmcPosition ?? ggaPosition }
}
