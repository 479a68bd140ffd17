// What the page shows of a circle view, now: the display model (Core's
// LocationMessage.displayedPosition), distances for the scale bar and grid, and text formatting.
// Pure functions, the current view and a text helper on window.whereabouts; no drawing.
"use strict";
(function () {
  const W = window.whereabouts = {};

  // Set by the server (PageSettings): the title, the tiles, and the constants shared with Core
  // (earthRadius: Geodesy.earthRadius; defaultMaxSilence: LocationMessage.defaultMaxSilence).
  W.settings = JSON.parse(document.getElementById("settings").textContent);

  // The view shown, when it arrived (performance.now(), this browser's clock), and how long after
  // its generatedAt it arrived by this browser's wall clock (delivery time plus any clock skew).
  W.state = { view: null, receivedAt: 0, deliveryLag: 0 };

  // The position a dashboard displays `elapsed` seconds after the fix's `tst`: the same formula
  // as Core's LocationMessage.displayedPosition(afterSeconds:). With ve/vn the fix moves on at
  // that velocity for at most `ms` seconds (default from the settings) on a flat east/north plane
  // tangent at the fix (LocalProjection); without them, or before tst, it stays put.
  W.displayedPosition = function (fix, elapsed) {
    const hasVelocity = typeof fix.ve === "number" && typeof fix.vn === "number" &&
      isFinite(fix.ve) && isFinite(fix.vn);
    if (!hasVelocity || !(elapsed > 0)) return { lat: fix.lat, lon: fix.lon, extrapolated: false };
    const horizon = Math.min(elapsed, typeof fix.ms === "number" ? fix.ms : W.settings.defaultMaxSilence);
    const perDegreeLat = W.settings.earthRadius * Math.PI / 180;
    const perDegreeLon = perDegreeLat * Math.cos(fix.lat * Math.PI / 180);
    // With a turn rate `tr` (degrees per second, counter-clockwise) the velocity turns meanwhile:
    // Core's LocationMessage.extrapolatedOffset.
    let east = fix.ve * horizon, north = fix.vn * horizon;
    if (typeof fix.tr === "number" && isFinite(fix.tr) && fix.tr !== 0) {
      const omega = fix.tr * Math.PI / 180;
      const sine = Math.sin(omega * horizon) / omega, versine = (1 - Math.cos(omega * horizon)) / omega;
      east = fix.ve * sine - fix.vn * versine;
      north = fix.vn * sine + fix.ve * versine;
    }
    let lon = fix.lon + east / perDegreeLon;
    if (lon > 180) lon -= 360; else if (lon < -180) lon += 360;
    return { lat: fix.lat + north / perDegreeLat, lon: lon,
             extrapolated: horizon > 0 && (fix.ve !== 0 || fix.vn !== 0) };
  };

  W.memberKey = (m) => m.user + "/" + m.device;
  W.memberColor = (m) => /^#[0-9a-fA-F]{3,8}$/.test(m.color || "") ? m.color : "#2563eb";

  // Seconds since the view was generated. Time since its arrival is measured on this browser's
  // monotonic clock, so a skewed clock on the phone does not change ages or extrapolation; the
  // view's delivery time (a cached view, a busy network) is added only when the wall clocks
  // agree, that is when the lag is between 0 and 2 s (a skewed clock shows a larger or negative
  // one).
  W.secondsSinceView = function () {
    const lag = W.state.deliveryLag;
    const delivery = lag > 0 && lag < 2 ? lag : 0;
    return (performance.now() - W.state.receivedAt) / 1000 + delivery;
  };

  // Members with a fix, their displayed position now, and the age of their fix. Members `gone`
  // (nothing heard for the gone timeout) are not on the map; the list still shows them.
  W.placedMembers = function () {
    const view = W.state.view;
    if (!view) return [];
    const since = W.secondsSinceView();
    return view.members.filter((m) => m.fix && m.status !== "gone").map((m) => {
      const elapsed = view.generatedAt - m.fix.tst + since;
      const age = (typeof m.age === "number" ? m.age : view.generatedAt - m.fix.tst) + since;
      return { member: m, position: W.displayedPosition(m.fix, elapsed), age: age };
    });
  };

  // Ground metres per screen pixel at latitude `lat` and zoom `zoom` in Web Mercator, the
  // projection of the map and of tile servers (256 pixels around the world at zoom 0).
  W.metresPerPixel = function (lat, zoom) {
    return 2 * Math.PI * W.settings.earthRadius * Math.cos(lat * Math.PI / 180) / (256 * Math.pow(2, zoom));
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
  // A stay's length, coarse as people say it: "5 min", "2 h", "2 h 5 min", "3 d".
  W.formatDuration = function (seconds) {
    if (!isFinite(seconds)) return "";
    const s = Math.max(0, Math.floor(seconds));
    if (s < 60) return "a moment";
    if (s < 3600) return Math.floor(s / 60) + " min";
    if (s < 86400) {
      const minutes = Math.floor(s % 3600 / 60);
      return Math.floor(s / 3600) + " h" + (minutes ? " " + minutes + " min" : "");
    }
    return Math.floor(s / 86400) + " d";
  };
  // "at Home for 2 h" for a member at one of the circle's places, else "".
  W.placeText = function (m) {
    if (!m.place || !W.state.view) return "";
    const stay = W.state.view.generatedAt + W.secondsSinceView() - m.placeSince;
    return "at " + m.place + (typeof m.placeSince === "number" ? " for " + W.formatDuration(stay) : "");
  };
  W.compass = function (degrees) {
    return ["N", "NE", "E", "SE", "S", "SW", "W", "NW"][Math.round(((degrees % 360) + 360) % 360 / 45) % 8];
  };
  // Two letters for a marker: the initials of the display name ("Carol (car)" -> "CC"), or its
  // first two letters for a one-word name. Tracker ids are often derived from device names
  // ("phone" -> "ne"), which says little on a family map.
  W.initials = function (name) {
    const words = String(name).split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
    if (words.length >= 2) return (words[0][0] + words[1][0]).toUpperCase();
    const word = words[0] || "?";
    return word[0].toUpperCase() + (word[1] || "").toLowerCase();
  };
  W.setText = function (element, text) {
    if (element.textContent !== text) { element.textContent = text; return true; }
    return false;
  };
})();
