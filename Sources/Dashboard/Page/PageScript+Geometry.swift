extension DashboardPage {
    /// Page script, part 1: the display model (Core's `LocationMessage.displayedPosition`),
    /// Web Mercator for drawing, and text formatting. Pure functions on `window.whereabouts`.
    static let scriptGeometry = #"""
    "use strict";
    const W = window.whereabouts = {};

    // Core's sphere (Geodesy.earthRadius) and default extrapolation horizon
    // (LocationMessage.defaultMaxSilence).
    W.EARTH_RADIUS = 6371008.8;
    W.DEFAULT_MAX_SILENCE = 60;

    // The position a dashboard displays `elapsed` seconds after the fix's `tst`: the same formula
    // as Core's LocationMessage.displayedPosition(afterSeconds:). With ve/vn the fix moves on at
    // that velocity for at most `ms` seconds (default 60) on a flat east/north plane tangent at
    // the fix (LocalProjection); without them, or before tst, it stays put.
    W.displayedPosition = function (fix, elapsed) {
      const hasVelocity = typeof fix.ve === "number" && typeof fix.vn === "number" &&
        isFinite(fix.ve) && isFinite(fix.vn);
      if (!hasVelocity || !(elapsed > 0)) return { lat: fix.lat, lon: fix.lon, extrapolated: false };
      const horizon = Math.min(elapsed, typeof fix.ms === "number" ? fix.ms : W.DEFAULT_MAX_SILENCE);
      const perDegreeLat = W.EARTH_RADIUS * Math.PI / 180;
      const perDegreeLon = perDegreeLat * Math.cos(fix.lat * Math.PI / 180);
      let lon = fix.lon + fix.ve * horizon / perDegreeLon;
      if (lon > 180) lon -= 360; else if (lon < -180) lon += 360;
      return { lat: fix.lat + fix.vn * horizon / perDegreeLat, lon: lon,
               extrapolated: horizon > 0 && (fix.ve !== 0 || fix.vn !== 0) };
    };

    // Web Mercator (the tile servers' projection): world coordinates in 256-pixel units at zoom 0.
    W.MAX_LAT = 85.05112878;
    W.toWorld = function (lat, lon) {
      const phi = Math.max(-W.MAX_LAT, Math.min(W.MAX_LAT, lat)) * Math.PI / 180;
      return {
        x: 256 * (lon + 180) / 360,
        y: 256 * (1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2
      };
    };
    W.fromWorld = function (x, y) {
      const n = Math.PI - 2 * Math.PI * y / 256;
      return { lat: 180 / Math.PI * Math.atan(Math.sinh(n)), lon: x / 256 * 360 - 180 };
    };
    // Ground metres per screen pixel at latitude `lat` and zoom `zoom`.
    W.metresPerPixel = function (lat, zoom) {
      return 2 * Math.PI * W.EARTH_RADIUS * Math.cos(lat * Math.PI / 180) / (256 * Math.pow(2, zoom));
    };
    // The largest 1, 2 or 5 x 10^n not above `metres`.
    W.niceDistance = function (metres) {
      const p = Math.pow(10, Math.floor(Math.log10(metres)));
      const m = metres / p;
      return (m >= 5 ? 5 : m >= 2 ? 2 : 1) * p;
    };
    W.formatDistance = function (metres) {
      return metres >= 1000 ? (metres / 1000).toLocaleString("en", { maximumFractionDigits: 1 }) + " km"
                            : Math.round(metres) + " m";
    };
    W.formatAge = function (seconds) {
      if (!isFinite(seconds)) return "";
      const s = Math.max(0, Math.floor(seconds));
      if (s < 60) return s + " s ago";
      if (s < 3600) return Math.floor(s / 60) + " min ago";
      if (s < 86400) return Math.floor(s / 3600) + " h " + Math.floor(s % 3600 / 60) + " min ago";
      return Math.floor(s / 86400) + " d ago";
    };
    W.compass = function (degrees) {
      return ["N", "NE", "E", "SE", "S", "SW", "W", "NW"][Math.round(((degrees % 360) + 360) % 360 / 45) % 8];
    };
    """#
}
