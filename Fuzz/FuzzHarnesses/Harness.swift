import Foundation

/// A decoder of outside input that the fuzzer drives: one harness per decoder.
///
/// Each harness feeds arbitrary bytes through the same entry point the product uses and checks
/// what must hold for any input (no crash, no hang, and the harness's invariants, which stop the
/// process with a message when broken). The names are the folders of `Fuzz/Corpus`.
package enum Harness: String, CaseIterable, Sendable {
    /// NMEA 0183 logs (`NMEAFile.parse`: sentences, checksums, epochs).
    case nmea
    /// GPX 1.0/1.1 files (`GPXFile.parse`: the XML scanner and the GPX parser).
    case gpx
    /// One line of gpsd JSON (`GpsdLine`, the gpsd source's decoder).
    case gpsd
    /// An OwnTracks payload received by the subscriber (`MessageDecoder`, `FlatJSON`).
    case message
    /// A command received by the publisher on `<base>/cmd` (`CommandMessage`).
    case command
    /// The subscriber's circles file (`CirclesFile.parse`).
    case circles
    /// The publisher's YAML config file (`ConfigFile`).
    case config

    /// Runs one input through the decoder and checks its invariants.
    package func run(_ input: [UInt8]) {
        switch self {
        case .nmea: PositionHarnesses.nmea(input)
        case .gpx: PositionHarnesses.gpx(input)
        case .gpsd: PositionHarnesses.gpsd(input)
        case .message: SubscriberHarnesses.message(input)
        case .command: PublisherHarnesses.command(input)
        case .circles: SubscriberHarnesses.circles(input)
        case .config: PublisherHarnesses.config(input)
        }
    }
}

/// Stops the process when an invariant of a decoder's output does not hold: libFuzzer records
/// the input as a crash, and the corpus replay test fails.
func require(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    if !condition { fatalError("Fuzz invariant broken: \(message())", file: file, line: line) }
}
