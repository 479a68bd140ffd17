#if canImport(Glibc)
import Glibc
#endif

/// A real pseudo-terminal pair: the test writes to the controller side, and the NMEA source reads
/// the device path of the other side as it would a USB GPS's `/dev/ttyUSB0`.
final class PseudoTerminal: Sendable {
    let controller: Int32
    private let device: Int32
    /// The device path (`/dev/pts/N`).
    let path: String

    init() throws {
        // Close-on-exec on both sides: a child process that another test starts meanwhile must not
        // inherit them, or closing them here would not unplug the device.
        controller = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard controller >= 0, grantpt(controller) == 0, unlockpt(controller) == 0, let name = ptsname(controller) else {
            throw PseudoTerminalError()
        }
        path = String(cString: name)
        // Keep the device side open and raw, so bytes written before the source opens are not
        // echoed or cooked by the line discipline.
        device = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard device >= 0 else { throw PseudoTerminalError() }
        var settings = termios()
        tcgetattr(device, &settings)
        cfmakeraw(&settings)
        tcsetattr(device, TCSANOW, &settings)
    }

    /// Writes `text` as the GPS would.
    func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(controller, $0.baseAddress, $0.count) }
    }

    /// Unplugs the GPS: closes both sides.
    func close() {
        Glibc.close(controller)
        Glibc.close(device)
    }
}

struct PseudoTerminalError: Error {}

// Glibc's Swift module hides the pseudo-terminal calls behind _XOPEN_SOURCE; they take and return
// plain C integers and pointers, so binding the symbols directly is safe.
@_silgen_name("posix_openpt") private func posix_openpt(_ flags: Int32) -> Int32
@_silgen_name("grantpt") private func grantpt(_ descriptor: Int32) -> Int32
@_silgen_name("unlockpt") private func unlockpt(_ descriptor: Int32) -> Int32
@_silgen_name("ptsname") private func ptsname(_ descriptor: Int32) -> UnsafeMutablePointer<CChar>?
