import Foundation
import WhereaboutsTestSupport

/// `GET /metrics` from a publisher's metrics server on loopback, over a real TCP connection; the
/// body of the response (Prometheus text).
func scrapeMetrics(port: Int) async throws -> String {
    try await RawHTTP.send(port: port, request: "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").body
}

/// The value of the sample `series` (name with its labels, as rendered) in Prometheus text, or nil.
func metricValue(_ series: String, in text: String) -> Double? {
    for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1).trimmingCharacters(in: .whitespaces))
    }
    return nil
}
