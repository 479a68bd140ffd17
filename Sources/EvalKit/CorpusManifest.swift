import Foundation

/// The corpus's `MANIFEST.md`: for each track file, the dataset it comes from and its mode of
/// travel. Its table has a row per file, `| file | source repo @ commit : path | licence | mode |
/// …`; the dataset is the source repository (the part before ` @ `), since the tracks of one
/// dataset share devices, smoothing and sampling rates and must be judged together.
package struct CorpusManifest: Sendable, Hashable {
    /// One file's entry.
    package struct Entry: Sendable, Hashable {
        /// The source dataset, such as `gpsbabel/gpsbabel`.
        package var dataset: String
        /// The mode of travel, such as `cycle`.
        package var mode: String

        /// An entry from its values.
        package init(dataset: String, mode: String) {
            self.dataset = dataset
            self.mode = mode
        }
    }

    /// The entries by file name.
    package var entries: [String: Entry]

    /// A manifest from its entries.
    package init(entries: [String: Entry]) {
        self.entries = entries
    }

    /// Reads the table rows of a manifest's text; lines that are not a row naming a file with an
    /// extension (headings, prose, the separator) are skipped.
    package init(text: String) {
        var entries: [String: Entry] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            // "| a | b | c | d |" splits into "", a, b, c, d, "".
            guard cells.count >= 6, cells[0].isEmpty else { continue }
            let file = cells[1], source = cells[2], mode = cells[4]
            guard file.contains("."), !file.contains(" "), !source.isEmpty, !mode.isEmpty, !mode.hasPrefix("-") else { continue }
            let dataset = source.components(separatedBy: " @ ").first?.trimmingCharacters(in: .whitespaces) ?? source
            entries[file] = Entry(dataset: dataset, mode: mode.lowercased())
        }
        self.entries = entries
    }

    /// Reads the manifest at `path`.
    package init(contentsOf path: String) throws(CorpusManifestError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path) }
        self.init(text: String(decoding: data, as: UTF8.self))
        guard !entries.isEmpty else { throw .empty(path) }
    }

    /// The entry of `fileName`, if the manifest lists it.
    package subscript(fileName: String) -> Entry? { entries[fileName] }
}

/// A manifest that cannot be used.
package enum CorpusManifestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file cannot be read.
    case unreadable(String)
    /// The file has no table row naming a track.
    case empty(String)
    /// A track is not in the manifest.
    case unlisted(track: String, manifest: String)

    /// A sentence saying what is wrong and what to do.
    package var description: String {
        switch self {
        case let .unreadable(path): "Cannot read the manifest \(path); give one with --manifest."
        case let .empty(path): "The manifest \(path) has no table row '| file | source repo @ commit : path | licence | mode | …'."
        case let .unlisted(track, manifest): "The track \(track) is not in the manifest \(manifest); add its row or leave it out."
        }
    }
}
