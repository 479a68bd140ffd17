import Foundation
import Testing
import WhereaboutsCore
@testable import PositionSources

@Suite("Source specification (--source)")
struct PositionSourceSpecTests {
    @Test("gpsd addresses", arguments: [
        ("gpsd://localhost:2947", "localhost", 2947), ("gpsd://", "localhost", 2947), ("gpsd:", "localhost", 2947),
        ("gpsd://10.0.0.7", "10.0.0.7", 2947), ("gpsd://gps.local:3000", "gps.local", 3000),
        ("gpsd://[::1]:2948", "::1", 2948), ("GPSD://pi:1/", "pi", 1),
    ])
    func gpsd(text: String, host: String, port: Int) throws {
        let spec = try PositionSourceSpec(parsing: text)
        #expect(spec.kind == .gpsd(GpsdOptions(host: host, port: port)))
        #expect(spec.replay == nil)
    }

    @Test("nmea paths, stdin and options")
    func nmea() throws {
        let device = try PositionSourceSpec(parsing: "nmea:/dev/ttyUSB0?baud=9600&uere=4&carry-date=true")
        #expect(device.kind == .nmea(.path("/dev/ttyUSB0"), NMEAOptions(uere: 4, baudRate: 9600, carryDate: true)))
        #expect(device.replay == nil, "NMEA is live unless told to replay")
        let stdin = try PositionSourceSpec(parsing: "nmea:-")
        #expect(stdin.kind == .nmea(.standardInput, NMEAOptions()))
        let log = try PositionSourceSpec(parsing: "nmea:logs/boat.nmea?replay=10x")
        #expect(log.replay == .multiplied(10))
    }

    @Test("gpx paths replay at real time by default")
    func gpx() throws {
        let spec = try PositionSourceSpec(parsing: "gpx:/tmp/a b.gpx")
        #expect(spec.kind == .gpx(path: "/tmp/a b.gpx", GPXOptions()))
        #expect(spec.replay == .realTime)
        #expect(try PositionSourceSpec(parsing: "gpx:t.gpx?replay=fast").replay == .asFastAsPossible)
    }

    @Test("sim scenarios and options")
    func sim() throws {
        let spec = try PositionSourceSpec(parsing: "sim:drive?seed=9&lat=52.5&lon=-8.6&interval=2&count=100&outliers=0.01&start=2024-05-01T08:00:00Z&replay=fast")
        var expected = SimulatorOptions(scenario: .drive, seed: 9, start: Coordinate(latitude: 52.5, longitude: -8.6), interval: 2, count: 100, outlierProbability: 0.01)
        expected.startTime = Date(timeIntervalSince1970: 1_714_550_400)
        #expect(spec.kind == .simulator(expected, startsNow: false))
        #expect(spec.replay == .asFastAsPossible)
        let plain = try PositionSourceSpec(parsing: "sim:still")
        #expect(plain.kind == .simulator(SimulatorOptions(scenario: .still, count: nil), startsNow: true))
        #expect(plain.replay == .realTime)
    }

    @Test("Bad values are refused with a specific error", arguments: [
        ("serial:/dev/ttyS0", PositionSourceSpecError.unknownScheme("serial")),
        ("localhost:2947", .unknownScheme("localhost")),
        ("/dev/ttyUSB0", .unknownScheme("/dev/ttyUSB0")),
        ("nmea:", .missingPath(scheme: "nmea")),
        ("gpx:?replay=fast", .missingPath(scheme: "gpx")),
        ("sim:swim", .unknownScenario("swim")),
        ("sim:", .unknownScenario("")),
        ("gpsd://localhost:0", .invalidAddress("//localhost:0", reason: "the port must be a number from 1 to 65535")),
        ("gpsd://localhost:http", .invalidAddress("//localhost:http", reason: "the port must be a number from 1 to 65535")),
        ("gpsd://[::1:2947", .invalidAddress("//[::1:2947", reason: "an IPv6 address needs its closing ]")),
        ("gpsd://localhost?baud=9600", .unknownOption(name: "baud", scheme: "gpsd", known: ["none"])),
        ("nmea:/dev/ttyUSB0?baud=1234", .invalidOption(name: "baud", value: "1234", expected: "1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400")),
        ("nmea:x?speed=2", .unknownOption(name: "speed", scheme: "nmea", known: ["baud", "uere", "carry-date", "replay"])),
        ("sim:walk?lat=91", .invalidOption(name: "lat", value: "91", expected: "degrees from -90 to 90")),
        ("sim:walk?seed=-1", .invalidOption(name: "seed", value: "-1", expected: "a whole number from 0 to 2^64-1")),
        ("sim:walk?interval=0", .invalidOption(name: "interval", value: "0", expected: "a number above 0")),
        ("sim:walk?interval=nan", .invalidOption(name: "interval", value: "nan", expected: "a number above 0")),
        ("sim:walk?replay=slow", .invalidOption(name: "replay", value: "slow", expected: "realtime, fast, or a factor such as 10x")),
        ("sim:walk?seed", .invalidOption(name: "seed", value: "", expected: "name=value")),
    ])
    func refused(text: String, expected: PositionSourceSpecError) {
        #expect(throws: expected) { try PositionSourceSpec(parsing: text) }
    }

    @Test("Error messages say what is accepted")
    func messages() {
        #expect(PositionSourceSpecError.unknownScheme("serial").description.contains("gpsd://HOST:PORT"))
        #expect(PositionSourceSpecError.unknownScenario("swim").description.contains("walk, cycle, drive, still, mixed"))
    }

    @Test("A simulated spec makes a paced source with a replay clock that follows its fixes")
    func makesSource() async throws {
        let spec = try PositionSourceSpec(parsing: "sim:walk?count=5&replay=fast&start=2024-05-01T08:00:00Z")
        let (source, clock) = spec.makeSource(logger: Fixtures.quietLogger)
        var last: Fix?
        for try await fix in source { last = fix }
        #expect(last?.time == Date(timeIntervalSince1970: 1_714_550_404))
        #expect(clock.now() == last?.time)
        let live = try PositionSourceSpec(parsing: "gpsd://localhost").makeSource(logger: Fixtures.quietLogger)
        #expect(live.clock is WallFixClock)
        let stdin = try PositionSourceSpec(parsing: "nmea:-").makeSource(logger: Fixtures.quietLogger)
        #expect(stdin.clock is WallFixClock, "stdin is live")
        let log = try PositionSourceSpec(parsing: "nmea:\(Fixtures.url("nmea/multi-talker.nmea").path)").makeSource(logger: Fixtures.quietLogger)
        #expect(log.clock is ReplayFixClock, "a recorded log in a regular file replays")
    }

    @Test("A GPX spec reads the file")
    func gpxSource() async throws {
        let spec = try PositionSourceSpec(parsing: "gpx:\(Fixtures.url("gpx/gpx10-speed-course.gpx").path)?replay=fast")
        var count = 0
        for try await _ in spec.makeSource(logger: Fixtures.quietLogger).source { count += 1 }
        #expect(count == 5)
    }
}

extension PositionSourceSpecTests {
    @Test("Every form the help summary names parses")
    func summaryFormsParse() throws {
        for form in ["gpsd://localhost:2947", "nmea:-", "nmea:/dev/ttyUSB0?baud=4800", "gpx:track.gpx?replay=10x",
                     "sim:walk?seed=1&lat=46&lon=14", "sim:mixed?replay=fast"] {
            #expect(throws: Never.self) { try PositionSourceSpec(parsing: form) }
        }
        for scenario in SimulationScenario.allCases {
            #expect(PositionSourceSpec.syntaxSummary.contains(scenario.rawValue))
        }
    }
}
