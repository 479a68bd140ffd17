import Foundation
import WhereaboutsCore

/// Draws one policy's run as an SVG picture (`--plot`): the track and the reported points above,
/// the live error (`predict` model) over time below, with the error bound when the policy has one.
package enum SVGPlot {
    /// The SVG document for `run` on `track`, with the policy's error bound, if any, dashed.
    package static func render(track: [Fix], run: PolicyRun, title: String) -> String {
        let bound = run.evaluation.errorBound
        let width = 900.0, mapHeight = 600.0, chartHeight = 220.0, margin = 30.0
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(mapHeight + chartHeight + 3 * margin))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(margin)" y="20">\(escaped(title)): \(run.evaluation.reports) reports, predict max \(String(format: "%.1f", run.evaluation.predictError.max)) m</text>

        """
        guard let first = track.first else { return svg + "</svg>\n" }
        let projection = LocalProjection(origin: first.coordinate)
        let points = track.map { projection.project($0.coordinate) }
        let minE = points.map(\.east).min() ?? 0, maxE = points.map(\.east).max() ?? 0
        let minN = points.map(\.north).min() ?? 0, maxN = points.map(\.north).max() ?? 0
        let scale = min((width - 2 * margin) / max(maxE - minE, 1), (mapHeight - margin) / max(maxN - minN, 1))
        func x(_ east: Double) -> Double { margin + (east - minE) * scale }
        func y(_ north: Double) -> Double { margin + mapHeight - (north - minN) * scale }
        svg += "<polyline fill=\"none\" stroke=\"#999\" stroke-width=\"1.5\" points=\""
        svg += points.map { "\(f(x($0.east))),\(f(y($0.north)))" }.joined(separator: " ") + "\"/>\n"
        for report in run.reports {
            let p = projection.project(report.message.coordinate)
            svg += "<circle cx=\"\(f(x(p.east)))\" cy=\"\(f(y(p.north)))\" r=\"3.5\" fill=\"#d33\"><title>\(report.index) \(report.report.trigger.rawValue)</title></circle>\n"
        }

        // Live error over time.
        let top = mapHeight + 2 * margin
        let start = first.time.timeIntervalSince1970
        let span = max(track[track.count - 1].time.timeIntervalSince1970 - start, 1)
        let maxError = max(run.predictErrors.max() ?? 0, bound ?? 0, 1)
        func cx(_ time: Date) -> Double { margin + (time.timeIntervalSince1970 - start) / span * (width - 2 * margin) }
        func cy(_ error: Double) -> Double { top + chartHeight - error / maxError * chartHeight }
        svg += "<rect x=\"\(margin)\" y=\"\(f(top))\" width=\"\(width - 2 * margin)\" height=\"\(chartHeight)\" fill=\"none\" stroke=\"#ccc\"/>\n"
        svg += "<text x=\"\(margin)\" y=\"\(f(top - 5))\">live error (predict), max \(String(format: "%.1f", maxError)) m</text>\n"
        if let bound {
            svg += "<line x1=\"\(margin)\" x2=\"\(width - margin)\" y1=\"\(f(cy(bound)))\" y2=\"\(f(cy(bound)))\" stroke=\"#d33\" stroke-dasharray=\"4 3\"/>\n"
        }
        svg += "<polyline fill=\"none\" stroke=\"#36c\" stroke-width=\"1\" points=\""
        svg += zip(track, run.predictErrors).map { "\(f(cx($0.time))),\(f(cy($1)))" }.joined(separator: " ") + "\"/>\n"
        return svg + "</svg>\n"
    }

    static func f(_ value: Double) -> String { String(format: "%.1f", value) }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
