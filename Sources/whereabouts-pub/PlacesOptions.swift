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

    /// `--place-margin` and `--place-dwell`, the same flags as the subscriber's.
    @OptionGroup var rules: PlaceRuleOptions

    /// The keys a config file accepts for these options.
    static let configKeys: [ConfigKey] = [ConfigKey("places", .string)] + PlaceRuleOptions.configKeys

    /// The places of the file (none without `--places`) and the rules, checked.
    func resolve() throws -> (places: [Place], rules: PlaceRules) {
        try rules.validate()
        guard let path = places else { return ([], rules.device) }
        do {
            return (try PlacesFile.load(path: path), rules.device)
        } catch {
            throw ValidationError("--places \(path): \(error.description)")
        }
    }
}
