extension DashboardPage {
    /// Page script, part 3: the circle selector, the live WebSocket with reconnect, the member
    /// list, touch and mouse navigation, and the render clock (4 Hz, so ages tick every second
    /// and extrapolated markers glide between updates).
    static let scriptLive = #"""
    const listElements = new Map();
    let socket = null, reconnectDelay = 500, reconnectTimer = null, circles = [];

    function setConnection(text, open) {
      const pill = $("connection");
      pill.textContent = text;
      pill.classList.toggle("open", open);
      document.body.dataset.connection = open ? "open" : "closed";
    }

    function selectedCircle() { return $("circle").value; }

    function optionText(c) {
      const online = (c.status && c.status.online) || 0;
      return c.name + " · " + online + "/" + c.members + " online";
    }

    // Loads the circle list into the selector, keeping the chosen circle when it still exists.
    async function loadCircles() {
      const response = await fetch("api/circles", { cache: "no-store" });
      if (!response.ok) throw new Error("GET /api/circles answered " + response.status);
      circles = (await response.json()).circles;
      const select = $("circle");
      const wanted = decodeURIComponent(location.hash.slice(1)) || select.value;
      const ids = circles.map((c) => c.id).join("\n");
      if ([...select.options].map((o) => o.value).join("\n") !== ids) {
        select.replaceChildren();
        for (const c of circles) {
          const option = document.createElement("option");
          option.value = c.id;
          select.appendChild(option);
        }
      }
      [...select.options].forEach((option, i) => { option.textContent = optionText(circles[i]); });
      if (circles.some((c) => c.id === wanted)) select.value = wanted;
      if (location.hash && select.value !== wanted) history.replaceState(null, "", "#" + encodeURIComponent(select.value));
      if (circles.length === 0) {
        $("empty").textContent = "The subscriber has no circles. Check its circles file.";
        $("empty").hidden = false;
      }
    }

    // Re-reads the circle list (the subscriber reloads its circles file on change): new circles
    // appear in the selector, and when the shown circle is gone the page moves to the first one.
    W.refreshCircles = async function () {
      const before = selectedCircle();
      await loadCircles();
      if (selectedCircle() !== before) showCircle();
    };

    function updateSummary(view) {
      const counts = { online: 0, stale: 0, offline: 0, unknown: 0 };
      for (const m of view.members) counts[m.status] = (counts[m.status] || 0) + 1;
      const summary = $("summary");
      summary.replaceChildren();
      for (const status of ["online", "stale", "offline", "unknown"]) {
        if (counts[status] === 0 && status !== "online") continue;
        const badge = document.createElement("span");
        badge.className = "badge " + status;
        badge.textContent = counts[status] + " " + status;
        summary.appendChild(badge);
      }
      const entry = circles.find((c) => c.id === view.circle.id);
      if (entry) {
        entry.status = counts;
        entry.members = view.members.length;
        const option = [...$("circle").options].find((o) => o.value === entry.id);
        if (option) option.textContent = optionText(entry);
      }
    }

    function connect() {
      clearTimeout(reconnectTimer);
      if (socket) { socket.onclose = null; socket.close(); socket = null; }
      const id = selectedCircle();
      if (!id) { retry(); return; }
      const scheme = location.protocol === "https:" ? "wss:" : "ws:";
      const base = location.pathname.replace(/[^/]*$/, "");
      const ws = new WebSocket(scheme + "//" + location.host + base + "api/circles/" + encodeURIComponent(id) + "/ws");
      socket = ws;
      setConnection("connecting…", false);
      ws.onopen = () => { setConnection("live", true); reconnectDelay = 500; };
      ws.onmessage = (event) => {
        let view;
        try { view = JSON.parse(event.data); } catch (e) { return; }
        if (!view || view._type !== "view" || !view.circle || view.circle.id !== selectedCircle() ||
            !Array.isArray(view.members)) return;
        W.state.view = view;
        W.state.receivedAt = performance.now();
        document.body.dataset.generatedAt = view.generatedAt;
        updateSummary(view);
        W.render();
      };
      ws.onclose = () => { if (socket === ws) retry(); };
    }

    function retry() {
      socket = null;
      setConnection("reconnecting in " + Math.round(reconnectDelay / 1000 * 10) / 10 + " s", false);
      reconnectTimer = setTimeout(() => { start().catch(retry); }, reconnectDelay);
      reconnectDelay = Math.min(10000, reconnectDelay * 2);
    }

    async function start() {
      await loadCircles();
      connect();
    }

    W.renderList = function () {
      const view = W.state.view, list = $("members");
      if (!view) return;
      const placed = new Map(W.placedMembers().map((p) => [memberKey(p.member), p]));
      const seen = new Set();
      for (const m of view.members) {
        const key = memberKey(m);
        seen.add(key);
        let li = listElements.get(key);
        if (!li) {
          li = document.createElement("li");
          li.innerHTML = '<span class="swatch"></span><span class="who"></span><span class="state"></span><span class="detail"></span>';
          li.addEventListener("click", () => W.focusMember(key));
          listElements.set(key, li);
        }
        list.appendChild(li);
        li.className = m.status;
        li.dataset.user = m.user;
        li.dataset.device = m.device;
        const swatch = li.querySelector(".swatch");
        swatch.style.background = memberColor(m);
        setText(swatch, W.initials(m.name));
        // The card's face, fetched once per face (its tag is in the URL, cached as immutable).
        if (m.face) {
          swatch.style.backgroundImage = 'url("api/circles/' + encodeURIComponent(view.circle.id) + "/members/" +
            encodeURIComponent(m.user) + "/" + encodeURIComponent(m.device) + "/face?v=" + encodeURIComponent(m.face) + '")';
          swatch.style.backgroundSize = "cover";
          swatch.style.color = "transparent";
        } else {
          swatch.style.color = "";
        }
        swatch.title = m.cardName || "";
        const who = li.querySelector(".who");
        if (who.dataset.text !== m.name + key) {
          who.dataset.text = m.name + key;
          who.textContent = m.name + " ";
          const small = document.createElement("small");
          small.textContent = key;
          who.appendChild(small);
        }
        setText(li.querySelector(".state"), m.status);
        const p = placed.get(key);
        const parts = [];
        if (p) {
          parts.push(W.formatAge(p.age));
          if (typeof m.speed === "number") {
            parts.push(Math.round(m.speed * 3.6) + " km/h" + (typeof m.course === "number" && m.speed > 0.5 ? " " + W.compass(m.course) : ""));
          }
          if (p.position.extrapolated) parts.push("predicted");
          if (m.fix.acc) parts.push("±" + m.fix.acc + " m");
          if (typeof m.fix.batt === "number") parts.push("batt " + m.fix.batt + " %");
        } else {
          parts.push("no position yet");
        }
        setText(li.querySelector(".detail"), parts.join(" · "));
      }
      for (const [key, li] of listElements) {
        if (!seen.has(key)) { li.remove(); listElements.delete(key); }
      }
    };

    W.focusMember = function (key) {
      const p = W.placedMembers().find((q) => memberKey(q.member) === key);
      if (!p) return;
      const c = W.state.camera;
      c.x = p.world.x;
      c.y = p.world.y;
      c.zoom = Math.max(c.zoom, 15);
      W.setAuto(false);
    };

    // Touch and mouse: drag to pan, pinch or wheel to zoom, double-click to zoom in.
    (function () {
      const map = $("map"), pointers = new Map();
      let pinch = null;
      map.addEventListener("pointerdown", (e) => { pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, moved: false }); });
      map.addEventListener("pointermove", (e) => {
        const p = pointers.get(e.pointerId);
        if (!p) return;
        const dx = e.clientX - p.x, dy = e.clientY - p.y;
        if (!p.moved && Math.hypot(dx, dy) < 4) return;
        if (!p.moved) { p.moved = true; map.setPointerCapture(e.pointerId); map.classList.add("dragging"); }
        if (pointers.size === 1) {
          W.panBy(dx, dy);
        } else if (pointers.size === 2) {
          const [a, b] = [...pointers.values()];
          const before = Math.hypot(a.x - b.x, a.y - b.y);
          p.x = e.clientX; p.y = e.clientY;
          const after = Math.hypot(a.x - b.x, a.y - b.y);
          const box = map.getBoundingClientRect();
          if (before > 0 && after > 0) {
            W.zoomBy(Math.log2(after / before), { x: (a.x + b.x) / 2 - box.left, y: (a.y + b.y) / 2 - box.top });
          }
          pinch = true;
          return;
        }
        p.x = e.clientX; p.y = e.clientY;
      });
      const end = (e) => {
        pointers.delete(e.pointerId);
        if (pointers.size === 0) { map.classList.remove("dragging"); pinch = null; }
      };
      map.addEventListener("pointerup", end);
      map.addEventListener("pointercancel", end);
      map.addEventListener("wheel", (e) => {
        e.preventDefault();
        const box = map.getBoundingClientRect();
        W.zoomBy(-e.deltaY / 300, { x: e.clientX - box.left, y: e.clientY - box.top });
      }, { passive: false });
      map.addEventListener("dblclick", (e) => {
        const box = map.getBoundingClientRect();
        W.zoomBy(1, { x: e.clientX - box.left, y: e.clientY - box.top });
      });
      $("zoomin").addEventListener("click", () => W.zoomBy(1));
      $("zoomout").addEventListener("click", () => W.zoomBy(-1));
      $("fit").addEventListener("click", () => W.setAuto(true));
    })();

    // Starts showing the selected circle from scratch.
    function showCircle() {
      history.replaceState(null, "", "#" + encodeURIComponent(selectedCircle()));
      W.state.view = null;
      listElements.forEach((li) => li.remove());
      listElements.clear();
      $("summary").replaceChildren();
      W.setAuto(true);
      connect();
    }
    $("circle").addEventListener("change", showCircle);
    setInterval(() => { if (socket) W.refreshCircles().catch(() => {}); }, 30000);
    window.addEventListener("resize", () => W.render());
    if (W.settings.tileURL && W.settings.tileAttribution) {
      $("attribution").textContent = W.settings.tileAttribution;
      $("attribution").hidden = false;
    }
    setConnection("connecting…", false);
    setInterval(() => { if (W.state.view) W.render(); }, 250);
    start().catch(retry);
    """#
}
