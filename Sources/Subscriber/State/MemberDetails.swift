import WhereaboutsCore

/// What the subscriber knows of one member beyond its stored fixes, for answers shaped like the
/// OwnTracks Recorder's `/api/0/last` (which merges the member's card and the last message's
/// extra keys into each location). Kept in memory only: none of it is in the history.
package struct MemberDetails: Sendable, Hashable {
    /// The card's display name.
    package var name: String?
    /// The card's face image.
    package var face: MemberFace?
    /// The regions the device last reported being in (its `inregions`, or changed by its
    /// transitions); empty when none.
    package var inregions: [String]
    /// The live fix (the newest by `tst`), with the keys only it keeps (`SSID`, `BSSID`, `poi`).
    package var fix: LocationMessage?

    /// Creates the details.
    package init(name: String? = nil, face: MemberFace? = nil, inregions: [String] = [], fix: LocationMessage? = nil) {
        self.name = name
        self.face = face
        self.inregions = inregions
        self.fix = fix
    }
}
