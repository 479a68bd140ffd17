import Foundation

extension MemberView {
    /// This view as an audience allowed `level` sees it (`grid`: the coarse cell size, metres).
    /// Whatever the level withholds is absent from the result, not hidden in it: a dashboard or
    /// an MQTT client of that circle never receives it.
    func redacted(to level: PrivacyLevel, grid: Double) -> MemberView {
        guard level != .exact else { return self }
        var view = MemberView(user: user, device: device, name: name, color: color, status: status, statusSince: statusSince)
        view.privacy = level
        view.due = due
        view.cardName = cardName
        view.face = face
        // Delivery counts of the device, not its position: every level may see them.
        view.unconfirmed = unconfirmed
        view.unconfirmedSince = unconfirmedSince
        switch level {
        case .exact, .hidden:
            return view
        case .place:
            view.place = place
            view.placeSince = placeSince
            return view
        case .coarse:
            view.place = place
            view.placeSince = placeSince
            view.tid = tid
            view.age = age
            guard let fix else { return view }
            let snapped = CoarseGrid(size: grid).snap(lat: fix.lat, lon: fix.lon)
            view.fix = FixView(
                tst: fix.tst, lat: snapped.lat, lon: snapped.lon, acc: max(fix.acc, Int(grid.rounded(.up))),
                t: fix.t, batt: fix.batt)
            view.display = DisplayPosition(lat: snapped.lat, lon: snapped.lon, extrapolated: false)
            return view
        }
    }
}
