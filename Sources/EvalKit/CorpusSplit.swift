import SystemSupport

/// How corpus mode files each track: its mode of travel (from the file name) and its half of the
/// deterministic split that keeps tuning honest (rules are chosen on half A, half B is reported
/// beside it).
package enum CorpusSplit {
    /// The modes of travel a file name may name, as the corpus's MANIFEST.md uses them.
    package static let modes = ["walk", "run", "cycle", "car", "bus", "train", "boat", "plane", "mixed", "unknown"]

    /// The first dash-separated word of `fileName` that is one of ``modes`` (the corpus names its
    /// files `<source>-<mode>-<detail>.gpx`), or `other`.
    package static func mode(of fileName: String) -> String {
        let stem = fileName.split(separator: ".").first.map(String.init) ?? fileName
        return stem.lowercased().split(separator: "-").map(String.init).first { modes.contains($0) } ?? "other"
    }

    /// `A` or `B`: the lowest bit of the 64-bit FNV-1a hash of the file name's UTF-8 bytes, so
    /// the split depends on nothing but the name (not on the folder, the order or the machine).
    package static func half(of fileName: String) -> String {
        FNV1a.hash(fileName.utf8) & 1 == 0 ? "A" : "B"
    }

}
