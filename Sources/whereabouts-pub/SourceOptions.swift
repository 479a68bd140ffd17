import ArgumentParser
import CommandLineDialect

/// Where fixes come from.
struct SourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The position source: gpsd://HOST:PORT for a gpsd daemon, nmea:PATH for an NMEA 0183 log or serial device (nmea:- for standard input), gpx:PATH for a recorded GPX track, or sim:SCENARIO for the built-in simulator; options go after a question mark, as docs/sources.md describes.",
        valueName: "spec"))
    var source: String?

    @Option(help: ArgumentHelp(
        "How fast a recorded source is replayed: a factor such as 10 (or 10x), realtime, or max for as fast as possible. GPX and the simulator default to realtime; an NMEA file given this flag is replayed instead of read live.",
        valueName: "N|max"))
    var replaySpeed: String?

    /// The config-file keys of these flags.
    static let configKeys: [ConfigKey] = [ConfigKey("source", .string), ConfigKey("replay-speed", .string)]
}
