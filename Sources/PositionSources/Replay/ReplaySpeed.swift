/// How fast a ``ReplaySource`` hands on recorded fixes.
public enum ReplaySpeed: Sendable, Hashable, CustomStringConvertible {
    /// With the same gaps between fixes as when they were recorded.
    case realTime
    /// `factor` times faster than recorded (2 = twice as fast; 0.5 = half speed).
    case multiplied(Double)
    /// Without waiting at all.
    case asFastAsPossible

    /// Parses `realtime`, `fast` (or `max`), or a factor such as `10`, `10x` or `0.5x`.
    public init?(_ text: String) {
        switch text.lowercased() {
        case "realtime", "real-time", "1", "1x": self = .realTime
        case "fast", "max", "asap": self = .asFastAsPossible
        default:
            let number = text.lowercased().hasSuffix("x") ? String(text.dropLast()) : text
            guard let factor = Double(number), factor.isFinite, factor > 0 else { return nil }
            self = factor == 1 ? .realTime : .multiplied(factor)
        }
    }

    /// `realtime`, `fast` or the factor with an `x`.
    public var description: String {
        switch self {
        case .realTime: "realtime"
        case let .multiplied(factor): "\(factor)x"
        case .asFastAsPossible: "fast"
        }
    }

    /// Seconds of wall time per second of recorded time, or `nil` for no waiting.
    var wallSecondsPerFixSecond: Double? {
        switch self {
        case .realTime: 1
        case let .multiplied(factor): 1 / factor
        case .asFastAsPossible: nil
        }
    }
}
