extension DashboardPage {
    /// Page script, part 2: the camera and the SVG map (tiles or grid, trails, accuracy circles,
    /// extrapolation lines, member markers with name, age and status, and the scale bar).
    ///
    /// Each marker carries `data-user`, `data-device`, `data-status`, `data-lat` and `data-lon`
    /// (the position drawn, 7 decimals), so tests and tools can read what the page shows.
    static let scriptMap = #"""
    const SVG_NS = "http://www.w3.org/2000/svg";
    const $ = (id) => document.getElementById(id);
    W.settings = JSON.parse($("settings").textContent);
    W.state = { view: null, receivedAt: 0, camera: { auto: true, x: 128, y: 128, zoom: 2 } };
    const STATUS_ORDER = { unknown: 0, offline: 1, stale: 2, online: 3 };
    const markerElements = new Map();
    const tileElements = new Map();

    function svg(tag, attributes, parent) {
      const element = document.createElementNS(SVG_NS, tag);
      for (const key in attributes) element.setAttribute(key, attributes[key]);
      if (parent) parent.appendChild(element);
      return element;
    }
    function memberKey(m) { return m.user + "/" + m.device; }
    function memberColor(m) { return /^#[0-9a-fA-F]{3,8}$/.test(m.color || "") ? m.color : "#2563eb"; }

    // Seconds since the view was generated, measured on this browser's clock only, so a skewed
    // clock on the phone does not change ages or extrapolation.
    W.secondsSinceView = function () {
      return (performance.now() - W.state.receivedAt) / 1000;
    };

    // Members with a fix, their displayed position now, and the age of their fix.
    W.placedMembers = function () {
      const view = W.state.view;
      if (!view) return [];
      const since = W.secondsSinceView();
      return view.members.filter((m) => m.fix).map((m) => {
        const elapsed = view.generatedAt - m.fix.tst + since;
        const position = W.displayedPosition(m.fix, elapsed);
        const age = (typeof m.age === "number" ? m.age : view.generatedAt - m.fix.tst) + since;
        return { member: m, position: position, age: age, world: W.toWorld(position.lat, position.lon) };
      });
    };

    function mapSize() {
      const box = $("map").getBoundingClientRect();
      return { width: Math.max(1, box.width), height: Math.max(1, box.height) };
    }
    function toScreen(world, size) {
      const c = W.state.camera, k = Math.pow(2, c.zoom);
      return { x: (world.x - c.x) * k + size.width / 2, y: (world.y - c.y) * k + size.height / 2 };
    }
    W.toScreen = (lat, lon) => toScreen(W.toWorld(lat, lon), mapSize());

    // Frames every member, their trails and accuracy, leaving room for the labels (right of
    // each marker) and the zoom buttons.
    W.fitCamera = function (placed, size) {
      const points = [];
      for (const p of placed) {
        points.push(p.world, W.toWorld(p.member.fix.lat, p.member.fix.lon));
        for (const t of p.member.trail || []) points.push(W.toWorld(t.lat, t.lon));
      }
      if (points.length === 0) return;
      const xs = points.map((p) => p.x), ys = points.map((p) => p.y);
      const minX = Math.min(...xs), maxX = Math.max(...xs), minY = Math.min(...ys), maxY = Math.max(...ys);
      const inset = { left: 36, right: Math.min(190, size.width * 0.4), top: 44, bottom: 52 };
      const room = { width: Math.max(40, size.width - inset.left - inset.right),
                     height: Math.max(40, size.height - inset.top - inset.bottom) };
      const spanX = Math.max(maxX - minX, 1e-9), spanY = Math.max(maxY - minY, 1e-9);
      const fit = Math.log2(Math.min(room.width / spanX, room.height / spanY));
      const c = W.state.camera;
      c.zoom = Math.max(2, Math.min(17, isFinite(fit) ? fit : 16));
      const k = Math.pow(2, c.zoom);
      c.x = (minX + maxX) / 2 - (inset.left + room.width / 2 - size.width / 2) / k;
      c.y = (minY + maxY) / 2 - (inset.top + room.height / 2 - size.height / 2) / k;
    };

    W.zoomBy = function (delta, anchor) {
      const c = W.state.camera, size = mapSize();
      const a = anchor || { x: size.width / 2, y: size.height / 2 };
      const k = Math.pow(2, c.zoom);
      const wx = c.x + (a.x - size.width / 2) / k, wy = c.y + (a.y - size.height / 2) / k;
      c.zoom = Math.max(1, Math.min(20, c.zoom + delta));
      const k2 = Math.pow(2, c.zoom);
      c.x = wx - (a.x - size.width / 2) / k2;
      c.y = wy - (a.y - size.height / 2) / k2;
      W.setAuto(false);
    };
    W.panBy = function (dx, dy) {
      const c = W.state.camera, k = Math.pow(2, c.zoom);
      c.x -= dx / k;
      c.y -= dy / k;
      W.setAuto(false);
    };
    W.setAuto = function (auto) {
      W.state.camera.auto = auto;
      $("fit").classList.toggle("active", auto);
      W.render();
    };

    function drawTiles(size) {
      const template = W.settings.tileURL;
      const group = $("tiles");
      if (!template) return;
      const c = W.state.camera;
      const z = Math.max(0, Math.min(19, Math.round(c.zoom)));
      const tilePx = 256 * Math.pow(2, c.zoom - z);
      const n = Math.pow(2, z);
      const topLeft = { x: c.x - size.width / 2 / Math.pow(2, c.zoom), y: c.y - size.height / 2 / Math.pow(2, c.zoom) };
      const x0 = Math.floor(topLeft.x / 256 * n), y0 = Math.max(0, Math.floor(topLeft.y / 256 * n));
      const x1 = Math.floor((topLeft.x + size.width / Math.pow(2, c.zoom)) / 256 * n);
      const y1 = Math.min(n - 1, Math.floor((topLeft.y + size.height / Math.pow(2, c.zoom)) / 256 * n));
      const wanted = new Set();
      for (let ty = y0; ty <= y1; ty++) {
        for (let tx = x0; tx <= x1; tx++) {
          const wrapped = ((tx % n) + n) % n;
          const key = z + "/" + tx + "/" + ty;
          wanted.add(key);
          let image = tileElements.get(key);
          if (!image) {
            const url = template.replace("{z}", z).replace("{x}", wrapped).replace("{y}", ty)
              .replace("{s}", "abc"[(wrapped + ty) % 3]);
            image = svg("image", { href: url, preserveAspectRatio: "none" }, group);
            tileElements.set(key, image);
          }
          const screen = toScreen({ x: tx * 256 / n, y: ty * 256 / n }, size);
          image.setAttribute("x", screen.x);
          image.setAttribute("y", screen.y);
          image.setAttribute("width", tilePx + 0.5);
          image.setAttribute("height", tilePx + 0.5);
        }
      }
      for (const [key, image] of tileElements) {
        if (!wanted.has(key)) { image.remove(); tileElements.delete(key); }
      }
    }

    function drawGridAndScale(size) {
      const c = W.state.camera;
      const centre = W.fromWorld(c.x, c.y);
      const mpp = W.metresPerPixel(centre.lat, c.zoom);
      const nice = W.niceDistance(mpp * 110);
      $("scalelabel").textContent = W.formatDistance(nice);
      $("scalebarbar").style.width = Math.round(nice / mpp) + "px";
      const group = $("grid");
      group.replaceChildren();
      if (W.settings.tileURL) return;
      const step = nice / mpp / 2;
      const origin = toScreen({ x: 0, y: 0 }, size);
      const first = (o) => Math.floor(-o / step);
      for (let i = first(origin.x); origin.x + i * step <= size.width; i++) {
        const x = origin.x + i * step;
        svg("line", { x1: x, y1: 0, x2: x, y2: size.height, class: i % 2 === 0 ? "major" : "" }, group);
      }
      for (let i = first(origin.y); origin.y + i * step <= size.height; i++) {
        const y = origin.y + i * step;
        svg("line", { x1: 0, y1: y, x2: size.width, y2: y, class: i % 2 === 0 ? "major" : "" }, group);
      }
    }

    function drawTrails(placed, size) {
      const group = $("trails");
      group.replaceChildren();
      const mpp = W.metresPerPixel(W.fromWorld(W.state.camera.x, W.state.camera.y).lat, W.state.camera.zoom);
      for (const p of placed) {
        const m = p.member, color = memberColor(m);
        const fixScreen = W.toScreen(m.fix.lat, m.fix.lon);
        const trail = (m.trail || []).map((t) => W.toScreen(t.lat, t.lon));
        if (trail.length > 0) {
          const points = trail.concat([fixScreen]).map((s) => s.x.toFixed(1) + "," + s.y.toFixed(1)).join(" ");
          svg("polyline", { points: points, class: "trail", stroke: color }, group);
          for (const s of trail) svg("circle", { cx: s.x, cy: s.y, r: 2.5, fill: color, class: "trail-dot" }, group);
        }
        const accuracy = (m.fix.acc || 0) / mpp;
        if (accuracy > 6) {
          svg("circle", { cx: fixScreen.x, cy: fixScreen.y, r: accuracy, fill: color, stroke: color, class: "acc" }, group);
        }
        if (p.position.extrapolated) {
          const shown = toScreen(p.world, size);
          svg("line", { x1: fixScreen.x, y1: fixScreen.y, x2: shown.x, y2: shown.y, stroke: color, class: "extrapolation" }, group);
        }
      }
    }

    function makeMarker(m) {
      const g = svg("g", { class: "member" });
      svg("circle", { r: 15, class: "ring" }, g);
      svg("path", { d: "M0,-22 L6,-13 L-6,-13 Z", class: "heading" }, g);
      svg("circle", { r: 11, class: "body" }, g);
      svg("text", { class: "tid" }, g);
      const label = svg("g", { class: "label", transform: "translate(20,-17)" }, g);
      svg("rect", { class: "label-bg", rx: 7, height: 34 }, label);
      svg("text", { class: "name", x: 8, y: 14 }, label);
      svg("text", { class: "age", x: 8, y: 28 }, label);
      g.addEventListener("click", () => W.focusMember(memberKey(m)));
      return g;
    }

    // The bottom of the zoom buttons, in map coordinates.
    function controlsBottom() {
      const controls = document.querySelector(".controls").getBoundingClientRect();
      return controls.bottom - $("map").getBoundingClientRect().top;
    }

    function setText(element, text) {
      if (element.textContent !== text) { element.textContent = text; return true; }
      return false;
    }

    function drawMarkers(placed, size) {
      const group = $("markers");
      const seen = new Set();
      placed.sort((a, b) => STATUS_ORDER[a.member.status] - STATUS_ORDER[b.member.status]);
      for (const p of placed) {
        const m = p.member, key = memberKey(m);
        seen.add(key);
        let g = markerElements.get(key);
        if (!g) { g = makeMarker(m); markerElements.set(key, g); }
        group.appendChild(g); // keeps the status order: online drawn last, on top
        const s = toScreen(p.world, size);
        g.setAttribute("transform", "translate(" + s.x.toFixed(1) + "," + s.y.toFixed(1) + ")");
        g.setAttribute("class", "member " + m.status);
        g.dataset.user = m.user;
        g.dataset.device = m.device;
        g.dataset.status = m.status;
        g.dataset.lat = p.position.lat.toFixed(7);
        g.dataset.lon = p.position.lon.toFixed(7);
        g.dataset.tst = m.fix.tst;
        g.querySelector(".body").setAttribute("fill", memberColor(m));
        setText(g.querySelector(".tid"), (m.tid || m.name.slice(0, 2)).slice(0, 2));
        const heading = g.querySelector(".heading");
        const moving = typeof m.course === "number" && (m.speed || 0) > 0.5;
        heading.style.display = moving ? "" : "none";
        heading.setAttribute("fill", memberColor(m));
        if (moving) heading.setAttribute("transform", "rotate(" + m.course + ")");
        const nameChanged = setText(g.querySelector(".name"), m.name);
        const statusText = m.status === "online" ? "" : " · " + m.status;
        const ageChanged = setText(g.querySelector(".age"), W.formatAge(p.age) + statusText);
        if (nameChanged || ageChanged) {
          const width = Math.max(g.querySelector(".name").getComputedTextLength(),
                                 g.querySelector(".age").getComputedTextLength());
          g.querySelector(".label-bg").setAttribute("width", Math.ceil(width) + 16);
        }
        // Labels go right of the marker, or left of it when they would leave the map or run
        // under the zoom buttons (top right).
        const labelWidth = Number(g.querySelector(".label-bg").getAttribute("width")) || 0;
        const rightLimit = size.width - (s.y < controlsBottom() + 20 ? 62 : 4);
        const flip = s.x + 20 + labelWidth > rightLimit && s.x - 20 - labelWidth >= 4;
        g.querySelector(".label").setAttribute("transform", "translate(" + (flip ? -20 - labelWidth : 20) + ",-17)");
      }
      for (const [key, g] of markerElements) {
        if (!seen.has(key)) { g.remove(); markerElements.delete(key); }
      }
    }

    W.render = function () {
      const size = mapSize();
      const placed = W.placedMembers();
      if (W.state.camera.auto) W.fitCamera(placed, size);
      drawTiles(size);
      drawGridAndScale(size);
      drawTrails(placed, size);
      drawMarkers(placed, size);
      const empty = $("empty");
      empty.hidden = placed.length > 0;
      if (W.state.view && placed.length === 0) {
        empty.textContent = W.state.view.members.length === 0
          ? "This circle has no members yet." : "No member has reported a position yet.";
      }
      W.renderList();
    };
    """#
}
