import ArgumentParser
import Foundation

@main
struct SourcesBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "SourcesBenchmark",
        abstract: "Measures how fast and in how much memory the position sources load recorded tracks.",
        discussion: """
            'SourcesBenchmark [fixes]' (the read measurement, the default) times loading whole \
            GPX and NMEA files; 'SourcesBenchmark memory FILE.gpx' compares peak memory while a \
            GPX file is streamed and read whole. See 'SourcesBenchmark help read' and \
            'SourcesBenchmark help memory'.
            """,
        subcommands: [Read.self, Memory.self, MemoryChild.self],
        defaultSubcommand: Read.self)
}

extension SourcesBenchmark {
    struct Read: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "How fast GPXFile.read and NMEAFile.read load whole files, against parsing alone.",
            discussion: """
                Writes a GPX 1.1 file and an NMEA log (RMC, GGA and GSA per epoch) of [fixes] \
                simulated fixes into a temporary folder, then times GPXFile.read and \
                NMEAFile.read, best of 3 each, in seconds. Baselines, in the same run: \
                Foundation's XMLParser with a delegate that does nothing (the XML parsing alone) \
                for GPX, and splitting into lines and checking each checksum for NMEA. Prints \
                each time and the ratio to its baseline.
                """)

        @Argument(help: "The number of simulated fixes in each file.")
        var fixes = 200_000

        func validate() throws {
            guard fixes >= 1 else { throw ValidationError("The number of fixes must be at least 1.") }
        }

        func run() throws {
            try runReadBenchmark(count: fixes)
        }
    }

    struct Memory: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Peak memory while a GPX file is streamed through GPXSource, against reading it whole.",
            discussion: """
                Streams FILE through GPXSource (what whereabouts-pub --source gpx: does, with a \
                consumer slower than the parser) and, as the baseline, reads it whole with \
                GPXFile.read (what whereabouts-eval does), each in a child process of its own. \
                Prints each peak resident memory (VmHWM) in MB, its seconds, and the ratio \
                streamed / whole.
                """)

        @Argument(help: "The GPX file to load.")
        var file: String

        func validate() throws {
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw ValidationError("\(file) is not a readable file.")
            }
        }

        func run() throws {
            try runMemoryMode(path: file)
        }
    }

    /// One measurement of `memory`, run by it in a child process.
    struct MemoryChild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "memory-child",
            abstract: "One measurement of 'memory' in this process; 'memory' runs it.",
            shouldDisplay: false)

        enum Mode: String, ExpressibleByArgument, CaseIterable { case stream, whole }

        @Argument(help: "How to load the file: stream (GPXSource) or whole (GPXFile.read).")
        var mode: Mode

        @Argument(help: "The GPX file to load.")
        var file: String

        func run() async throws {
            try await runMemoryChild(mode: mode.rawValue, path: file)
        }
    }
}
