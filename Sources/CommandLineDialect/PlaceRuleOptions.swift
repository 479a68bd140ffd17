import ArgumentParser
import WhereaboutsCore

/// `--place-margin` and `--place-dwell`: the two settings of the place rules (``PlaceRules``) that
/// both long-running programs take, with one help text, one default, one check and one config key
/// each. The leave rule itself (how many fixes beyond the edge make a departure) is not a flag:
/// each program's is set in `PlaceRules.device` and `PlaceRules.subscriber`.
package struct PlaceRuleOptions: ParsableArguments, Sendable {
    /// Creates the options with their defaults (ArgumentParser fills them).
    package init() {}

    /// The hysteresis margin, metres.
    @Option(help: ArgumentHelp(
        "Metres beyond a place's radius a fix must be, at least, to count as having left it: the leave boundary is radius + max(fix accuracy, this margin), so GPS jitter at the edge never flaps.",
        valueName: "metres"))
    package var placeMargin: Double = PlaceRules.defaultMargin

    /// The dwell of places that set none, seconds.
    @Option(help: ArgumentHelp(
        "Seconds inside a place before an arrival counts, for places without their own dwell.",
        valueName: "seconds"))
    package var placeDwell: Double = PlaceRules.defaultDwell

    /// The config-file keys of these flags.
    package static let configKeys: [ConfigKey] = [
        ConfigKey("place-margin", .number),
        ConfigKey("place-dwell", .number),
    ]

    /// The largest margin accepted, metres.
    static let maxMargin = 10_000.0

    /// Checks both values (ArgumentParser calls it before `run()`).
    package func validate() throws {
        guard placeMargin.isFinite, (0...Self.maxMargin).contains(placeMargin) else {
            throw ValidationError("--place-margin must be between 0 and \(Int(Self.maxMargin)) metres, not \(placeMargin).")
        }
        guard placeDwell.isFinite, (0...Place.maxDwell).contains(placeDwell) else {
            throw ValidationError("--place-dwell must be between 0 and \(Int(Place.maxDwell)) seconds, not \(placeDwell).")
        }
    }

    /// The publisher's rules with these settings.
    package var device: PlaceRules { .device(margin: placeMargin, defaultDwell: placeDwell) }

    /// The subscriber's rules with these settings.
    package var subscriber: PlaceRules { .subscriber(margin: placeMargin, defaultDwell: placeDwell) }
}
