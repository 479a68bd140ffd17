// The history panel: pick a member of the shown circle and a time range, draw the trail the
// server's history holds (GET api/0/locations, the OwnTracks Recorder API), play it back at a
// chosen speed, and export it as GPX or GeoJSON (links to the same API with format=gpx|geojson).
// Shown only when the server keeps a history (api/0/version answers).
//
// The panel (#history) carries data-points (how many points are drawn) and, while a trail is
// shown, data-tst, data-lat and data-lon of the playback marker, for tests and scripts.
// Corrections: "Delete this point" removes the stored point at or just before the playback
// marker, "Delete the whole range" every point shown (DELETE api/0/locations, audited by the
// server), each after a confirmation.
// Outliers: "Show rejected points" lists (#history-rejected) and draws (hollow dashed circles,
// class history-rejected) the member's locations the server rejected at ingest in the range
// (GET api/0/rejected), each with its reason and a "Restore" button (POST
// api/0/rejected/restore, audited), after a confirmation; the panel's data-rejected holds how
// many are listed.
"use strict";
(function () {
  const W = window.whereabouts;
  const $ = (id) => document.getElementById(id);
  const panel = $("history");
  let points = [];       // [{lat, lon, tst}], sorted by tst (the server sorts)
  let layer = null;      // Leaflet layer group of the trail and its marker
  let marker = null;
  let playing = false, playTst = 0, lastFrame = 0;
  let membersSignature = "";
  let rejected = [];     // [{lat, lon, tst, reason, acc}] of the range, when shown
  let rejectedLayer = null;
  const reasons = {
    implied_speed: "an implausible jump",
    poor_accuracy: "poor accuracy",
    future_timestamp: "a time in the future",
  };

  // "YYYY-MM-DDTHH:MM:SS" in UTC, as the Recorder API takes it, from a datetime-local value.
  function utc(localValue) {
    const date = new Date(localValue);
    return isNaN(date.getTime()) ? null : date.toISOString().slice(0, 19);
  }
  // A datetime-local value (this browser's time zone) for a Date.
  function local(date) {
    const shifted = new Date(date.getTime() - date.getTimezoneOffset() * 60000);
    return shifted.toISOString().slice(0, 19);
  }
  function setStatus(text) { $("history-status").textContent = text; }

  // The members of the circle shown, as options "user/device".
  function refreshMembers() {
    const view = W.state.view;
    if (!view) return;
    const members = view.members.map((m) => ({ key: m.user + "/" + m.device, label: (m.name || m.user) + " (" + m.device + ")" }));
    const signature = members.map((m) => m.key).join("\n");
    if (signature === membersSignature) return;
    membersSignature = signature;
    const select = $("history-member");
    const chosen = select.value;
    select.replaceChildren();
    for (const m of members) {
      const option = document.createElement("option");
      option.value = m.key;
      option.textContent = m.label;
      select.appendChild(option);
    }
    if (members.some((m) => m.key === chosen)) select.value = chosen;
  }

  function query(format) {
    const [user, device] = $("history-member").value.split("/");
    const from = utc($("history-from").value), to = utc($("history-to").value);
    if (!user || !device) throw new Error("Pick a member first.");
    if (!from || !to) throw new Error("Give both ends of the time range.");
    const params = new URLSearchParams({ user: user, device: device, from: from, to: to, format: format });
    return "api/0/locations?" + params.toString();
  }

  // The rejected points of the chosen member and range, listed and drawn when the toggle is on.
  async function showRejected() {
    const list = $("history-rejected");
    list.replaceChildren();
    rejected = [];
    if (rejectedLayer) { rejectedLayer.remove(); rejectedLayer = null; }
    if (!$("history-show-rejected").checked) { delete panel.dataset.rejected; return; }
    let url;
    try { url = query("json").replace("api/0/locations?", "api/0/rejected?"); } catch (e) { setStatus(e.message); return; }
    const response = await fetch(url, { cache: "no-store" });
    const body = await response.json().catch(() => null);
    if (!response.ok) { setStatus((body && body.message) || ("The server answered " + response.status + ".")); return; }
    rejected = (body.data || []).filter((d) => typeof d.lat === "number" && typeof d.lon === "number");
    panel.dataset.rejected = String(rejected.length);
    if (rejected.length === 0) {
      const item = document.createElement("li");
      item.textContent = "No rejected points in this range.";
      list.appendChild(item);
      return;
    }
    for (const d of rejected) {
      const item = document.createElement("li");
      item.className = "history-rejected-item";
      item.dataset.tst = String(d.tst);
      const why = reasons[d.reason] || d.reason;
      item.textContent = new Date(d.tst * 1000).toLocaleString() + ": rejected for " + why +
        (d.reason === "poor_accuracy" ? " (" + d.acc + " m)" : "") + " ";
      const button = document.createElement("button");
      button.type = "button";
      button.className = "history-restore";
      button.dataset.tst = String(d.tst);
      button.textContent = "Restore";
      button.addEventListener("click", () => { restore(d).catch((e) => setStatus(String(e))); });
      item.appendChild(button);
      list.appendChild(item);
    }
    if (rejected.length > 1) {
      const item = document.createElement("li");
      const all = document.createElement("button");
      all.type = "button";
      all.id = "history-restore-all";
      all.textContent = "Restore all " + rejected.length;
      all.addEventListener("click", () => { restoreAll().catch((e) => setStatus(String(e))); });
      item.appendChild(all);
      list.appendChild(item);
    }
    if (!W.map) return;
    rejectedLayer = L.layerGroup().addTo(W.map);
    for (const d of rejected) {
      L.circleMarker([d.lat, d.lon], { className: "history-rejected", radius: 6, weight: 2, dashArray: "3 3", color: "#c0392b", fillOpacity: 0, interactive: false })
        .addTo(rejectedLayer);
    }
  }

  async function restore(point) {
    if (!window.confirm("Restore the point of " + new Date(point.tst * 1000).toLocaleString() +
      " into the history? The restoration is kept in the audit log.")) return;
    await postRestore({ tst: String(point.tst) });
  }

  // Every rejected point of the chosen range (one audited request, POST with from and to).
  async function restoreAll() {
    if (!window.confirm("Restore all " + rejected.length + " rejected points of this range into the history? " +
      "The restoration is kept in the audit log.")) return;
    await postRestore({ from: utc($("history-from").value), to: utc($("history-to").value) });
  }

  async function postRestore(params) {
    const [user, device] = $("history-member").value.split("/");
    const response = await fetch("api/0/rejected/restore?" + new URLSearchParams(Object.assign({ user: user, device: device }, params)).toString(),
      { method: "POST", cache: "no-store" });
    const body = await response.json().catch(() => null);
    if (!response.ok) { setStatus((body && body.message) || ("The server answered " + response.status + ".")); return; }
    await show();
    const note = (body.restored === 1 ? "Restored 1 location." : "Restored " + body.restored + " locations.") +
      (body.still_in_future > 0 ? " " + body.still_in_future + " not restored: their time still lies in the future." : "");
    setStatus(note + " " + $("history-status").textContent);
  }

  async function show() {
    stop();
    await showRejected();
    let url;
    try { url = query("json"); } catch (e) { setStatus(e.message); return; }
    setStatus("Loading…");
    const response = await fetch(url, { cache: "no-store" });
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      setStatus((body && body.message) || ("The server answered " + response.status + "."));
      return;
    }
    points = (body.data || []).filter((d) => typeof d.lat === "number" && typeof d.lon === "number")
      .map((d) => ({ lat: d.lat, lon: d.lon, tst: d.tst }));
    panel.dataset.points = String(points.length);
    $("history-gpx").href = query("gpx");
    $("history-geojson").href = query("geojson");
    $("history-playback").hidden = points.length === 0;
    if (points.length === 0) { clearDrawing(); setStatus("No locations in this range."); return; }
    setStatus(points.length + " points, " + new Date(points[0].tst * 1000).toLocaleString() + " – " +
      new Date(points[points.length - 1].tst * 1000).toLocaleString());
    const slider = $("history-position");
    slider.min = String(points[0].tst);
    slider.max = String(points[points.length - 1].tst);
    draw();
    moveTo(points[0].tst);
  }

  function clearDrawing() {
    if (layer) { layer.remove(); layer = null; marker = null; }
    delete panel.dataset.tst; delete panel.dataset.lat; delete panel.dataset.lon;
  }

  function draw() {
    clearDrawing();
    if (!W.map) return; // no map library: the status line and the exports still work
    const latlngs = points.map((p) => [p.lat, p.lon]);
    layer = L.layerGroup().addTo(W.map);
    L.polyline(latlngs, { className: "history-trail", weight: 4, opacity: 0.8, interactive: false }).addTo(layer);
    marker = L.circleMarker(latlngs[0], { className: "history-marker", radius: 7, weight: 3, interactive: false }).addTo(layer);
    W.setAuto(false); // the live view must not pull the camera away from the trail
    W.map.fitBounds(L.latLngBounds(latlngs).pad(0.15), { animate: false });
  }

  // Puts the playback marker where the member was at `tst` (between two points: on the straight
  // line between them, in proportion to the time).
  function moveTo(tst) {
    if (points.length === 0) return;
    playTst = Math.max(points[0].tst, Math.min(points[points.length - 1].tst, tst));
    let i = 0;
    while (i + 1 < points.length && points[i + 1].tst <= playTst) i += 1;
    const a = points[i], b = points[Math.min(i + 1, points.length - 1)];
    const f = b.tst > a.tst ? (playTst - a.tst) / (b.tst - a.tst) : 0;
    const lat = a.lat + (b.lat - a.lat) * f, lon = a.lon + (b.lon - a.lon) * f;
    if (marker) marker.setLatLng([lat, lon]);
    panel.dataset.tst = String(Math.round(playTst));
    panel.dataset.lat = lat.toFixed(7);
    panel.dataset.lon = lon.toFixed(7);
    $("history-position").value = String(Math.round(playTst));
    $("history-time").textContent = new Date(playTst * 1000).toLocaleTimeString();
  }

  function frame(now) {
    if (!playing) return;
    const speed = Number($("history-speed").value) || 1;
    playTst += (now - lastFrame) / 1000 * speed;
    lastFrame = now;
    moveTo(playTst);
    if (playTst >= points[points.length - 1].tst) { stop(); return; }
    requestAnimationFrame(frame);
  }

  function play() {
    if (points.length === 0) return;
    if (playTst >= points[points.length - 1].tst) moveTo(points[0].tst);
    playing = true;
    panel.dataset.playing = "true";
    $("history-play").textContent = "Pause";
    lastFrame = performance.now();
    requestAnimationFrame(frame);
  }

  function stop() {
    playing = false;
    panel.dataset.playing = "false";
    $("history-play").textContent = "Play";
  }

  // The point at or just before the playback position.
  function currentPoint() {
    let i = 0;
    while (i + 1 < points.length && points[i + 1].tst <= playTst) i += 1;
    return points[i];
  }

  async function remove(params, what) {
    if (!window.confirm("Delete " + what + "? This cannot be undone; the deletion is kept in the audit log.")) return;
    const [user, device] = $("history-member").value.split("/");
    const response = await fetch("api/0/locations?" + new URLSearchParams(Object.assign({ user: user, device: device }, params)).toString(),
      { method: "DELETE", cache: "no-store" });
    const body = await response.json().catch(() => null);
    if (!response.ok) { setStatus((body && body.message) || ("The server answered " + response.status + ".")); return; }
    await show();
    setStatus("Deleted " + body.removed + " location" + (body.removed === 1 ? "" : "s") + ". " + $("history-status").textContent);
  }

  async function init() {
    const response = await fetch("api/0/version", { cache: "no-store" });
    if (!response.ok) return; // no history on this server
    panel.hidden = false;
    const now = new Date();
    $("history-to").value = local(now);
    $("history-from").value = local(new Date(now.getTime() - 6 * 3600 * 1000));
    const render = W.render;
    W.render = function () { render(); refreshMembers(); };
    refreshMembers();
    $("history-show").addEventListener("click", () => { show().catch((e) => setStatus(String(e))); });
    $("history-play").addEventListener("click", () => { if (playing) stop(); else play(); });
    $("history-position").addEventListener("input", (e) => { stop(); moveTo(Number(e.target.value)); });
    $("history-delete-point").addEventListener("click", () => {
      const p = currentPoint();
      if (p) remove({ tst: String(p.tst) }, "the point of " + new Date(p.tst * 1000).toLocaleString()).catch((e) => setStatus(String(e)));
    });
    $("history-delete-range").addEventListener("click", () => {
      if (points.length === 0) return;
      remove({ from: utc($("history-from").value), to: utc($("history-to").value) }, "all " + points.length + " points shown")
        .catch((e) => setStatus(String(e)));
    });
    const outliers = document.createElement("div");
    outliers.id = "history-outliers";
    const toggle = document.createElement("label");
    const checkbox = document.createElement("input");
    checkbox.type = "checkbox";
    checkbox.id = "history-show-rejected";
    checkbox.style.width = "auto"; // the panel's inputs are full width; a checkbox is not
    toggle.append(checkbox, " Show rejected points");
    const list = document.createElement("ul");
    list.id = "history-rejected";
    outliers.append(toggle, list);
    $("history-status").after(outliers);
    checkbox.addEventListener("change", () => { showRejected().catch((e) => setStatus(String(e))); });
    $("history-close").addEventListener("click", () => {
      checkbox.checked = false; showRejected().catch(() => {});
      stop(); clearDrawing(); points = []; panel.dataset.points = "0";
      $("history-playback").hidden = true; setStatus(""); W.setAuto(true);
    });
  }

  init().catch(() => {});
})();
