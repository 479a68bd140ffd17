import Foundation
import Hummingbird
import Logging

/// Leaflet, the library that draws the page's map, read once at start from a folder: by default
/// the one Debian's `libjs-leaflet` installs (``DashboardConfiguration/leafletDirectory``).
///
/// Served under `assets/leaflet/`: `leaflet.js` (Debian's minified `leaflet.min.js` when present),
/// `leaflet.css` and the `images/` it names. Without it the page still lists the members live and
/// says, in place of the map, what to install.
struct LeafletFiles: Sendable {
    /// The folder the files were read from.
    let directory: String
    /// The files by the path they are served under, relative to `assets/leaflet/`.
    private let files: [String: PageAsset]
    /// The version `leaflet.js` declares, such as `1.6.0`, when it declares one.
    let version: String?

    /// Whether both the script and the stylesheet were found.
    var isAvailable: Bool { files["leaflet.js"] != nil && files["leaflet.css"] != nil }

    /// The file served as `assets/leaflet/<path>`, if any.
    func file(_ path: String) -> PageAsset? { files[path] }

    /// Reads Leaflet from `directory`, logging at start what was found: the version at info, or a
    /// warning that says what to install when the script or the stylesheet is missing.
    static func load(from directory: String, logger: Logger) -> LeafletFiles {
        let folder = URL(fileURLWithPath: directory, isDirectory: true)
        func read(_ name: String) -> [UInt8]? {
            (try? Data(contentsOf: folder.appendingPathComponent(name))).map { [UInt8]($0) }
        }
        var files: [String: PageAsset] = [:]
        let script = read("leaflet.min.js") ?? read("leaflet.js")
        if let script { files["leaflet.js"] = PageAsset(named: "leaflet.js", bytes: script) }
        if let style = read("leaflet.css") { files["leaflet.css"] = PageAsset(named: "leaflet.css", bytes: style) }
        let images = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("images").path)) ?? []
        for name in images where name.hasSuffix(".png") || name.hasSuffix(".svg") {
            if let bytes = read("images/\(name)") { files["images/\(name)"] = PageAsset(named: name, bytes: bytes) }
        }
        let version = script.flatMap(Self.version(in:))
        let leaflet = LeafletFiles(directory: directory, files: files, version: version)
        if leaflet.isAvailable {
            logger.info(
                "Dashboard map library found",
                metadata: ["whereabouts.leaflet.directory": "\(directory)", "whereabouts.leaflet.version": "\(version ?? "unknown")"])
        } else {
            let missing = ["leaflet.js", "leaflet.css"].filter { files[$0] == nil }.joined(separator: " and ")
            logger.warning(
                "Dashboard map library missing: \(missing) not found in \(directory). The page will list members without a map. Install the Debian package libjs-leaflet (scripts/install-deps does), or pass --leaflet-dir with a folder that holds leaflet.js and leaflet.css.",
                metadata: ["whereabouts.leaflet.directory": "\(directory)"])
        }
        return leaflet
    }

    /// The version the script exports (`version = "1.6.0"` in Leaflet's source, `.version="1.6.0"`
    /// once minified).
    private static func version(in script: [UInt8]) -> String? {
        let text = String(decoding: script, as: UTF8.self)
        guard let match = text.firstMatch(of: /version ?= ?"(\d+\.\d+\.\d+)"/) else { return nil }
        return String(match.1)
    }
}
