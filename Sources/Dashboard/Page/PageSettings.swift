import Foundation
import WhereaboutsCore

/// The settings the page reads from its inline JSON block (`<script id="settings">`): what the
/// operator configured, and the constants the page shares with Core, so that the JavaScript has
/// no copies of them.
struct PageSettings: Sendable, Codable, Hashable {
    /// The page's title.
    var title: String
    /// The tile URL template, if tiles are drawn.
    var tileURL: String?
    /// The tile provider's attribution, shown as text.
    var tileAttribution: String?
    /// Core's sphere, in metres (`Geodesy.earthRadius`): extrapolation, scale bar and grid.
    var earthRadius: Double
    /// How long a fix with a velocity and no `ms` is extrapolated, in seconds
    /// (`LocationMessage.defaultMaxSilence`).
    var defaultMaxSilence: Int
    /// Whether the server found Leaflet; without it the page says what to install.
    var mapLibrary: Bool

    /// The settings for a configuration.
    init(configuration: DashboardConfiguration, mapLibrary: Bool) {
        title = configuration.title
        tileURL = configuration.tileURLTemplate
        tileAttribution = configuration.tileAttribution
        earthRadius = Geodesy.earthRadius
        defaultMaxSilence = LocationMessage.defaultMaxSilence
        self.mapLibrary = mapLibrary
    }

    /// The settings as JSON that cannot end the `<script>` element it sits in.
    var scriptSafeJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return json.replacingOccurrences(of: "<", with: "\\u003c")
    }
}
