import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns the command line's track arguments into track files: a file stays itself, a folder
/// becomes its track files (by extension, sorted by name, not recursive), and an argument with
/// `*`, `?` or `[` that names no file is a glob pattern (quoted so the shell left it alone).
enum TrackPaths {
    /// The extensions taken from a folder.
    static let extensions: Set<String> = ["gpx", "nmea", "nma", "log", "txt"]

    static func expand(_ arguments: [String]) throws(ValidationError) -> [String] {
        var paths: [String] = []
        for argument in arguments {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) {
                paths += isDirectory.boolValue ? try folder(argument) : [argument]
            } else if argument.contains(where: { "*?[".contains($0) }) {
                let matches = glob(argument)
                guard !matches.isEmpty else { throw ValidationError("No track file matches \(argument).") }
                paths += matches
            } else {
                throw ValidationError("Cannot read the track \(argument): no such file or folder.")
            }
        }
        return paths
    }

    static func folder(_ path: String) throws(ValidationError) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            throw ValidationError("Cannot list the folder \(path).")
        }
        let tracks = names.filter { extensions.contains(URL(fileURLWithPath: $0).pathExtension.lowercased()) }.sorted()
        guard !tracks.isEmpty else {
            throw ValidationError("The folder \(path) holds no track files (.gpx, .nmea, .nma, .log, .txt).")
        }
        return tracks.map { URL(fileURLWithPath: path).appendingPathComponent($0).path }
    }

    static func glob(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        #if canImport(Glibc)
        guard Glibc.glob(pattern, 0, nil, &result) == 0 else { return [] }
        #else
        guard Darwin.glob(pattern, 0, nil, &result) == 0 else { return [] }
        #endif
        return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }.sorted()
    }
}
