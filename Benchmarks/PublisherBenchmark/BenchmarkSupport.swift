import Foundation

/// Helpers the publisher benchmarks share: the built binaries and child processes.
enum BenchmarkSupport {
    /// The folder holding this benchmark's binary, where `swift build` also put whereabouts-pub.
    static var productsFolder: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// The whereabouts-pub binary built next to this benchmark.
    static func publisherBinary() throws -> URL {
        let url = productsFolder.appendingPathComponent("whereabouts-pub")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw BenchmarkError("build whereabouts-pub in the same configuration first: swift build -c release --product whereabouts-pub")
        }
        return url
    }

    /// A fresh temporary folder.
    static func temporaryFolder(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wb-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Starts `executable` with `arguments`, output to `log`.
    static func start(_ executable: URL, _ arguments: [String], log: URL) throws -> Process {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    /// `VmRSS` and `VmHWM` of a running process, in kB, from /proc.
    static func memory(of pid: Int32) -> (rss: Int, hwm: Int, anon: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        guard let rss = field("VmRSS"), let hwm = field("VmHWM") else { return nil }
        return (rss, hwm, field("RssAnon") ?? 0)
    }

    /// A one-point GPX track from 2000, older than anything in a benchmark outbox, so a replay of it
    /// commits nothing and ends at once.
    static func tinyTrack(in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("tiny.gpx")
        try """
            <?xml version="1.0"?><gpx version="1.1" creator="bench" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="52.0" lon="-8.0"><time>2000-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>
            """.write(to: url, atomically: true, encoding: .utf8)
        return url
    }
}

/// A benchmark precondition that failed.
struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
