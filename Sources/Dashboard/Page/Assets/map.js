// The map, drawn by Leaflet: each member's marker (disc with initials, status ring, heading
// arrow, label with name and age), trail, accuracy circle and extrapolation line; tiles when the
// server configures them, else a metric grid; the scale bar; and the camera (fit, zoom buttons,
// focus on a member). Leaflet brings panning, pinch and wheel zoom, double-click and keyboard.
//
// Each marker's `.member` element carries data-user, data-device, data-status, data-lat and
// data-lon (the position the marker has in Leaflet, 7 decimals) and data-tst.
"use strict";
(function () {
  const W = window.whereabouts;
  const $ = (id) => document.getElementById(id);
  const STATUS_ORDER = { unknown: 0, gone: 0, offline: 1, overdue: 2, stale: 3, stationary: 4, online: 5 };
  W.state.auto = true;
  W.map = null;

  if (typeof L === "undefined") {
    // No map library: the list still works; the map area says why there is no map.
    W.mapProblem = W.settings.mapLibrary
      ? "The map library (Leaflet) did not load; reload the page. The list shows every member live meanwhile."
      : "This server has no map library: install the Debian package libjs-leaflet and restart whereabouts-sub. " +
        "The list shows every member live meanwhile.";
    $("mapwrap").classList.add("nomap");
    W.drawMap = function () {};
    W.focusMember = function () {};
    W.setAuto = function (auto) { W.state.auto = auto; };
    W.resizeMap = function () {};
    return;
  }

  const tiles = W.settings.tileURL;
  const map = W.map = L.map("map", {
    zoomControl: false, attributionControl: Boolean(tiles), zoomSnap: 0, zoomDelta: 1,
    minZoom: 1, maxZoom: 20, trackResize: false, wheelPxPerZoomLevel: 120
  });
  map.setView([20, 0], 2);
  if (tiles) {
    // Leaflet shows attributions as HTML; the operator's text is shown as text.
    const text = W.settings.tileAttribution;
    L.tileLayer(tiles, { maxNativeZoom: 19, maxZoom: 20, attribution: text ? escapeHTML(text) : undefined })
      .addTo(map);
  }
  const overlays = L.layerGroup().addTo(map);
  const placesLayer = L.layerGroup().addTo(map);
  let placesDrawn = "";
  const drawn = new Map();

  function escapeHTML(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  // MARK: Camera. The page fits every member in view until the user moves the map.
  let moving = 0; // > 0 while the page itself moves the camera
  function moveCamera(action) {
    moving += 1;
    try { action(); } finally { moving -= 1; }
  }
  map.on("movestart zoomstart", () => { if (moving === 0 && W.state.auto) W.setAuto(false); });
  map.on("zoomend moveend", () => { if (moving === 0 && W.state.view) W.render(); });

  W.setAuto = function (auto) {
    W.state.auto = auto;
    $("fit").classList.toggle("active", auto);
    W.render();
  };

  // Frames every member, their trails and accuracy, leaving room for the labels (right of each
  // marker) and the zoom buttons; zoom 2 to 17.
  function fitCamera(placed) {
    const points = [];
    for (const p of placed) {
      points.push([p.position.lat, p.position.lon], [p.member.fix.lat, p.member.fix.lon]);
      for (const t of p.member.trail || []) points.push([t.lat, t.lon]);
    }
    if (points.length === 0) return;
    const size = map.getSize();
    const topLeft = L.point(36, 44), bottomRight = L.point(Math.min(190, size.x * 0.4), 52);
    const bounds = L.latLngBounds(points);
    const fit = map.getBoundsZoom(bounds, false, topLeft.add(bottomRight));
    const zoom = Math.max(2, Math.min(17, isFinite(fit) ? fit : 16));
    const middle = map.project(bounds.getSouthWest(), zoom).add(map.project(bounds.getNorthEast(), zoom)).divideBy(2);
    const centre = map.unproject(middle.add(bottomRight.subtract(topLeft).divideBy(2)), zoom);
    const shift = map.project(centre, zoom).distanceTo(map.project(map.getCenter(), zoom));
    if (Math.abs(zoom - map.getZoom()) < 1e-3 && shift < 0.25) return;
    moveCamera(() => map.setView(centre, zoom, { animate: false }));
  }

  W.focusMember = function (key) {
    const p = W.placedMembers().find((q) => W.memberKey(q.member) === key);
    if (!p) return;
    W.setAuto(false);
    map.setView([p.position.lat, p.position.lon], Math.max(map.getZoom(), 15));
  };
  W.resizeMap = function () { moveCamera(() => map.invalidateSize({ pan: false })); };
  $("zoomin").addEventListener("click", () => { W.setAuto(false); map.zoomIn(); });
  $("zoomout").addEventListener("click", () => { W.setAuto(false); map.zoomOut(); });
  $("fit").addEventListener("click", () => W.setAuto(true));

  // MARK: Scale bar, and the metric grid when there are no tiles: lines at half the scale-bar
  // distance, anchored to the world so they move with the map, stronger every second line.
  const SVG_NS = "http://www.w3.org/2000/svg";
  const grid = document.createElementNS(SVG_NS, "svg");
  grid.id = "grid";
  grid.setAttribute("class", "grid");
  grid.setAttribute("aria-hidden", "true");
  if (!tiles) map.getContainer().insertBefore(grid, map.getContainer().firstChild);

  function drawGridAndScale() {
    const size = map.getSize();
    const mpp = W.metresPerPixel(map.getCenter().lat, map.getZoom());
    const nice = W.niceDistance(mpp * 110);
    W.setText($("scalelabel"), W.formatDistance(nice));
    $("scalebarbar").style.width = Math.round(nice / mpp) + "px";
    if (tiles) return;
    const step = nice / mpp / 2;
    const origin = map.getPixelBounds().min; // world pixel of the map's top-left corner
    const lines = [];
    for (let i = Math.ceil(origin.x / step); i * step - origin.x <= size.x; i++) {
      lines.push([i * step - origin.x, 0, i * step - origin.x, size.y, i % 2 === 0]);
    }
    for (let i = Math.ceil(origin.y / step); i * step - origin.y <= size.y; i++) {
      lines.push([0, i * step - origin.y, size.x, i * step - origin.y, i % 2 === 0]);
    }
    grid.replaceChildren(...lines.map(([x1, y1, x2, y2, major]) => {
      const line = document.createElementNS(SVG_NS, "line");
      line.setAttribute("x1", x1); line.setAttribute("y1", y1);
      line.setAttribute("x2", x2); line.setAttribute("y2", y2);
      if (major) line.setAttribute("class", "major");
      return line;
    }));
  }
  map.on("move zoom viewreset resize", drawGridAndScale);
  drawGridAndScale();

  // MARK: Members.
  function makeDrawing(key) {
    const element = document.createElement("div");
    element.className = "member";
    element.innerHTML = '<svg class="disc" width="48" height="48" viewBox="-24 -24 48 48" aria-hidden="true">' +
      '<circle r="15" class="ring"/><path d="M0,-22 L6,-13 L-6,-13 Z" class="heading"/><circle r="11" class="body"/></svg>' +
      '<span class="tid"></span><div class="label"><span class="name"></span><span class="age"></span></div>';
    const marker = L.marker([0, 0], {
      icon: L.divIcon({ html: element, className: "member-icon", iconSize: [0, 0] }), keyboard: false
    });
    marker.on("click", () => W.focusMember(key));
    const vector = { interactive: false };
    return {
      element: element, marker: marker, color: null, trailKey: null, zIndex: null, labelWidth: 0,
      trail: L.polyline([], Object.assign({ className: "trail", weight: 3, opacity: 0.55 }, vector)),
      dots: L.layerGroup(),
      accuracy: L.circle([0, 0], Object.assign({ radius: 1, className: "acc", weight: 1, opacity: 0.35, fillOpacity: 0.1 }, vector)),
      line: L.polyline([], Object.assign({ className: "extrapolation", weight: 2, dashArray: "3 4", opacity: 0.7 }, vector))
    };
  }

  function show(layer, visible) {
    if (visible && !overlays.hasLayer(layer)) overlays.addLayer(layer);
    if (!visible && overlays.hasLayer(layer)) overlays.removeLayer(layer);
  }

  function remove(d) {
    map.removeLayer(d.marker);
    for (const layer of [d.trail, d.dots, d.accuracy, d.line]) show(layer, false);
  }

  // The bottom of the zoom buttons, in map coordinates.
  function controlsBottom() {
    return document.querySelector(".controls").getBoundingClientRect().bottom - map.getContainer().getBoundingClientRect().top;
  }

  // Puts a marker's label where it overlaps no label placed before it, stays on the map and
  // clears the zoom buttons: right of the marker, else left, else above or below either side.
  function placeLabel(d, s, size, placedLabels, buttonsBottom) {
    const width = d.labelWidth, height = 34;
    const candidates = [[20, -17], [-20 - width, -17], [20, -55], [-20 - width, -55], [20, 21], [-20 - width, 21]];
    const fits = ([dx, dy]) => {
      const box = { left: s.x + dx, top: s.y + dy, right: s.x + dx + width, bottom: s.y + dy + height };
      if (box.left < 4 || box.right > size.x - 4 || box.top < 2 || box.bottom > size.y - 2) return null;
      if (box.right > size.x - 62 && box.top < buttonsBottom + 8) return null;
      const clash = placedLabels.some((o) => box.left < o.right && o.left < box.right && box.top < o.bottom && o.top < box.bottom);
      return clash ? null : box;
    };
    // The slot used last time is tried first, so labels do not hop between frames.
    const previous = d.labelSlot || 0;
    const order = [previous].concat(candidates.map((_, i) => i).filter((i) => i !== previous));
    let chosen = candidates[0], box = null;
    for (const i of order) {
      box = fits(candidates[i]);
      if (box) { chosen = candidates[i]; d.labelSlot = i; break; }
    }
    placedLabels.push(box || { left: s.x + chosen[0], top: s.y + chosen[1], right: s.x + chosen[0] + width, bottom: s.y + chosen[1] + height });
    d.element.querySelector(".label").style.transform = "translate(" + chosen[0] + "px," + chosen[1] + "px)";
  }

  function drawMember(p, d, mpp) {
    const m = p.member, color = W.memberColor(m);
    const fix = L.latLng(m.fix.lat, m.fix.lon), shown = L.latLng(p.position.lat, p.position.lon);
    d.marker.setLatLng(shown);
    const zIndex = STATUS_ORDER[m.status] * 100000; // online drawn last, on top
    if (d.zIndex !== zIndex) { d.zIndex = zIndex; d.marker.setZIndexOffset(zIndex); }

    const trail = (m.trail || []).map((t) => [t.lat, t.lon]);
    const trailKey = JSON.stringify(trail) + color + fix.toString();
    if (d.trailKey !== trailKey) {
      d.trailKey = trailKey;
      d.trail.setLatLngs(trail.length > 0 ? trail.concat([fix]) : []).setStyle({ color: color });
      d.dots.clearLayers();
      for (const t of trail) {
        L.circleMarker(t, { radius: 2.5, stroke: false, fillColor: color, fillOpacity: 0.6, className: "trail-dot", interactive: false })
          .addTo(d.dots);
      }
    }
    show(d.trail, trail.length > 0);
    show(d.dots, trail.length > 0);
    if (d.color !== color) {
      d.color = color;
      d.accuracy.setStyle({ color: color, fillColor: color });
      d.line.setStyle({ color: color });
    }
    const accuracy = m.fix.acc || 0;
    if (accuracy / mpp > 6) d.accuracy.setLatLng(fix).setRadius(accuracy);
    show(d.accuracy, accuracy / mpp > 6);
    if (p.position.extrapolated) d.line.setLatLngs([fix, shown]);
    show(d.line, p.position.extrapolated);

    const e = d.element, at = d.marker.getLatLng();
    e.className = "member " + m.status;
    e.dataset.user = m.user;
    e.dataset.device = m.device;
    e.dataset.status = m.status;
    e.dataset.lat = at.lat.toFixed(7);
    e.dataset.lon = at.lng.toFixed(7);
    e.dataset.tst = m.fix.tst;
    e.querySelector(".body").setAttribute("fill", color);
    W.setText(e.querySelector(".tid"), W.initials(m.name));
    const heading = e.querySelector(".heading");
    const isMoving = typeof m.course === "number" && (m.speed || 0) > 0.5;
    heading.style.display = isMoving ? "" : "none";
    heading.setAttribute("fill", color);
    if (isMoving) heading.setAttribute("transform", "rotate(" + m.course + ")");
    const nameChanged = W.setText(e.querySelector(".name"), m.name);
    const statusText = m.status === "online" ? "" : " · " + m.status;
    const ageChanged = W.setText(e.querySelector(".age"), W.formatAge(p.age) + statusText);
    if (nameChanged || ageChanged || d.labelWidth === 0) d.labelWidth = e.querySelector(".label").offsetWidth;
  }

  // The circle's places: a dashed disc each, named by a permanent tooltip (text, not HTML).
  // Redrawn only when the view's places change.
  function drawPlaces(places) {
    const key = JSON.stringify(places || []);
    if (key === placesDrawn) return;
    placesDrawn = key;
    placesLayer.clearLayers();
    for (const place of places || []) {
      const disc = L.circle([place.lat, place.lon], {
        radius: place.radius, className: "place", weight: 1.5, dashArray: "5 4", fillOpacity: 0.06, interactive: false
      });
      disc.bindTooltip(escapeHTML(place.name), { permanent: true, direction: "center", className: "place-label" });
      disc.addTo(placesLayer);
    }
  }

  W.drawMap = function (placed) {
    drawPlaces(W.state.view && W.state.view.places);
    if (W.state.auto) fitCamera(placed);
    const size = map.getSize(), buttonsBottom = controlsBottom();
    const mpp = W.metresPerPixel(map.getCenter().lat, map.getZoom());
    const seen = new Set(), placedLabels = [];
    placed.sort((a, b) => STATUS_ORDER[a.member.status] - STATUS_ORDER[b.member.status]);
    for (const p of placed) {
      const key = W.memberKey(p.member);
      seen.add(key);
      let d = drawn.get(key);
      if (!d) { d = makeDrawing(key); drawn.set(key, d); d.marker.addTo(map); }
      drawMember(p, d, mpp);
      placeLabel(d, map.latLngToContainerPoint(d.marker.getLatLng()), size, placedLabels, buttonsBottom);
    }
    for (const [key, d] of drawn) {
      if (!seen.has(key)) { remove(d); drawn.delete(key); }
    }
  };

  // For tests and tools: where Leaflet has a member's marker, and where that is on the screen.
  W.markerPosition = function (user, device) {
    for (const [key, d] of drawn) {
      if (d.element.dataset.user !== user || (device && d.element.dataset.device !== device)) continue;
      const at = d.marker.getLatLng(), point = map.latLngToContainerPoint(at);
      return { key: key, lat: at.lat, lon: at.lng, x: point.x, y: point.y };
    }
    return null;
  };
})();
