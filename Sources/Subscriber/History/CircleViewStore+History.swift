import Foundation

extension CircleViewStore {
    /// Each tracked member's circle ids, for the history's per-circle retention.
    func historyMembership() -> [MemberID: [String]] {
        memberCircles
    }
}
