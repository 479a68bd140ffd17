import Foundation
import WhereaboutsCore

extension MemberView {
    /// The view of `member` at `now` (epoch s) from what the subscriber holds about it: status,
    /// trail, regions and card, and where a dashboard draws it (Core's prediction).
    init(
        _ member: Member, state: MemberState?, card: MemberCard?, regions: ReportedRegions?,
        place: (place: String, since: Int)?, at now: Double, settings: ViewSettings, delivery: ReportStamp? = nil
    ) {
        self.init(user: member.user, device: member.device, name: member.name, color: member.color, status: .unknown)
        unconfirmed = delivery?.unconfirmed
        unconfirmedSince = delivery?.unconfirmed == 0 ? nil : delivery?.unconfirmedSince
        self.place = place?.place
        placeSince = place?.since
        guard let state else { return }
        status = state.status(at: now, settings: settings)
        statusSince = state.statusSince(at: now, settings: settings)
        due = state.promise
        trail = state.trail.trailPoints
        inregions = regions?.names
        if let card {
            cardName = card.name
            face = card.face?.tag
        }
        guard let fix = state.fix else { return }
        tid = fix.tid.isEmpty ? nil : fix.tid
        self.fix = FixView(fix)
        age = max(0, now - Double(fix.tst))
        let velocity = fix.extrapolationVelocity
        speed = velocity.map(\.speed) ?? fix.vel.map { Double($0) / 3.6 }
        if let cog = fix.cog {
            course = Double(cog)
        } else if let velocity, velocity.speed > 0 {
            let degrees = atan2(velocity.east, velocity.north) * 180 / .pi
            course = degrees < 0 ? degrees + 360 : degrees
        }
        let shown = fix.displayedPosition(at: Date(timeIntervalSince1970: now))
        let moved = velocity.map { $0.speed > 0 } ?? false
        display = DisplayPosition(lat: shown.latitude, lon: shown.longitude, extrapolated: moved && now > Double(fix.tst))
    }
}

/// What a member's OwnTracks `card` said: a display name and a face image.
struct MemberCard: Sendable, Hashable {
    var name: String?
    var face: MemberFace?
}
