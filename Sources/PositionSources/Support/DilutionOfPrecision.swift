#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WhereaboutsCore

/// Turns a dilution of precision into an accuracy in metres.
///
/// Accuracy = DOP x UERE (user equivalent range error). Whereabouts uses a UERE of 5 m by default:
/// roughly the one-sigma range error of a consumer receiver without differential corrections, so
/// HDOP 1.0 reads as "about 5 m". gpsd, for comparison, uses 15 m at 95 % confidence (about 6 m one
/// sigma). Configurable on every source that reads DOPs.
public enum DilutionOfPrecision {
    /// The default user equivalent range error, in metres.
    public static let defaultUERE = 5.0
}
