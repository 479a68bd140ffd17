import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-line progress bar on standard error, drawn only when standard error is a terminal so
/// that logs and pipes stay clean.
struct ProgressBar {
    let enabled = isatty(STDERR_FILENO) != 0

    func update(label: String, done: Int, total: Int, unit: String) {
        guard enabled, total > 0 else { return }
        let width = 30
        let filled = width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total) \(unit)  \(label)\u{1B}[K".utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
