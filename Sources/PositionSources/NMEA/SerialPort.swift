#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Puts a serial (tty) device into raw mode at a given baud rate, 8N1, ignoring modem lines.
enum SerialPort {
    /// The baud rates a serial NMEA source accepts.
    static let supportedBaudRates = [1_200, 2_400, 4_800, 9_600, 19_200, 38_400, 57_600, 115_200, 230_400]

    static func speed(for baudRate: Int) -> speed_t? {
        switch baudRate {
        case 1_200: speed_t(B1200)
        case 2_400: speed_t(B2400)
        case 4_800: speed_t(B4800)
        case 9_600: speed_t(B9600)
        case 19_200: speed_t(B19200)
        case 38_400: speed_t(B38400)
        case 57_600: speed_t(B57600)
        case 115_200: speed_t(B115200)
        case 230_400: speed_t(B230400)
        default: nil
        }
    }

    /// Configures the open tty `descriptor` (raw, `baudRate`, 8N1, receiver on, modem lines ignored).
    static func configure(descriptor: Int32, path: String, baudRate: Int) throws(PositionSourceError) {
        guard let speed = speed(for: baudRate) else {
            throw .cannotConfigureSerial(path: path, reason: "\(baudRate) baud is not one of \(supportedBaudRates.map(String.init).joined(separator: ", "))")
        }
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else {
            throw .cannotConfigureSerial(path: path, reason: String(cString: strerror(errno)))
        }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        settings.c_cflag &= ~tcflag_t(CSTOPB)
        guard cfsetispeed(&settings, speed) == 0, cfsetospeed(&settings, speed) == 0,
              tcsetattr(descriptor, TCSANOW, &settings) == 0 else {
            throw .cannotConfigureSerial(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
