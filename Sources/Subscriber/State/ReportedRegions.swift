/// The regions a device last reported being in: from a fix's `inregions`, or changed by its
/// `transition` events, whichever is newer.
struct ReportedRegions: Sendable, Hashable {
    /// The regions' names (the device's `desc`), in the order the device reported them.
    private(set) var names: [String] = []
    /// The `tst` of the message that set ``names``.
    private var tst = Int.min

    /// Takes the regions of a fix dated `tst`, unless newer news is held; returns whether the
    /// names changed.
    mutating func set(_ names: [String], tst: Int) -> Bool {
        guard tst >= self.tst else { return false }
        self.tst = tst
        defer { self.names = names }
        return self.names != names
    }

    /// Applies a transition (`enter` or `leave`) of `region` dated `tst`, unless newer news is
    /// held; returns whether the names changed.
    mutating func apply(event: String, region: String, tst: Int) -> Bool {
        guard tst >= self.tst else { return false }
        self.tst = tst
        let before = names
        if event == "enter" {
            if !names.contains(region) { names.append(region) }
        } else {
            names.removeAll { $0 == region }
        }
        return before != names
    }
}
