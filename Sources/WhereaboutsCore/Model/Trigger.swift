/// Why a location report was sent: OwnTracks' trigger letter (`t` field).
///
/// The letters are the ones OwnTracks apps use, so OwnTracks tools display them unchanged.
public enum Trigger: String, Sendable, Hashable, Codable, CaseIterable {
    /// First publish after start.
    case firstPublish = "f"
    /// Moving: the policy decided the position changed enough.
    case moving = "t"
    /// Time passed (for example `maxSilence`) without another reason to report.
    case timePassed = "T"
    /// The device went from moving to stationary.
    case becameStationary = "k"
    /// The device went from stationary to moving.
    case startedMoving = "v"
    /// Requested by a `reportLocation` command: `r`, the letter the OwnTracks apps answer with
    /// (`m` is the monitoring-mode field, not a trigger).
    case requested = "r"
    /// A ping.
    case ping = "p"
    /// The device entered or left one of its places: `c`, a circular region, the letter the
    /// OwnTracks apps send with the location that goes with a transition (Android's
    /// `ReportType.CIRCULAR`).
    case region = "c"
}
