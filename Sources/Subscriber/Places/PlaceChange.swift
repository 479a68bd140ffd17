/// An arrival at or a departure from a place, as ``PlaceTracker`` decides it.
struct PlaceChange: Sendable, Hashable {
    /// Arrived or departed.
    enum Kind: Sendable, Hashable {
        case arrived
        case departed
    }

    /// What happened.
    var kind: Kind
    /// The place's name.
    var place: String
    /// Epoch seconds it happened: for an arrival, the first fix inside (the dwell started then).
    var tst: Int
    /// Whether it rests on state the broker replayed (retained messages after a restart): the
    /// view shows it, but no event is sent, as for every replayed message.
    var quiet: Bool
}
