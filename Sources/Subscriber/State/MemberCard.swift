/// What a member's OwnTracks `card` said: a display name and a face image.
struct MemberCard: Sendable, Hashable {
    var name: String?
    var face: MemberFace?
}
