import ArgumentParser
import CommandLineDialect
import Publisher
import WhereaboutsCore

/// The device's places: `--places`, and the hysteresis and dwell of entering and leaving them.
struct PlacesOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A YAML file of places (\(PlacesFile.keySummary)), the shape of a circle's places: in the subscriber's circles file. Entering and leaving them publishes OwnTracks transition messages on <base>/event and may switch profile. setWaypoints commands add places too (see docs/publisher.md).",
        valueName: "path"))
    var places: String?

    @Option(help: ArgumentHelp(
        "Metres beyond a place's radius a fix must be, at least, to count as having left it: the leave boundary is radius + max(fix accuracy, this margin).",
        valueName: "metres"))
    var placeMargin: Double = PlaceRules.defaultMargin

    @Option(help: ArgumentHelp(
        "Seconds the device must stay inside a place before it counts as entered, for places without their own dwell.",
        valueName: "seconds"))
    var placeDwell: Double = PlaceRules.defaultDwell

    /// The keys a config file accepts for these options.
    static let configKeys: [ConfigKey] = [
        ConfigKey("places", .string),
        ConfigKey("place-margin", .number),
        ConfigKey("place-dwell", .number),
    ]

    /// The places of the file (none without `--places`) and the rules, checked.
    func resolve() throws -> (places: [Place], rules: PlaceRules) {
        guard placeMargin.isFinite, (0...10_000).contains(placeMargin) else {
            throw ValidationError("--place-margin must be between 0 and 10000 metres, not \(placeMargin).")
        }
        guard placeDwell.isFinite, (0...Place.maxDwell).contains(placeDwell) else {
            throw ValidationError("--place-dwell must be between 0 and 86400 seconds, not \(placeDwell).")
        }
        let rules = PlaceRules.device(margin: placeMargin, defaultDwell: placeDwell)
        guard let path = places else { return ([], rules) }
        do {
            return (try PlacesFile.load(path: path), rules)
        } catch {
            throw ValidationError("--places \(path): \(error.description)")
        }
    }
}
