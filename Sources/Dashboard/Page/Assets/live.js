// Keeps the page live: the circle selector, the WebSocket of the selected circle with reconnect
// and backoff, the periodic re-read of the circle list, and the render clock (4 Hz, so ages tick
// every second and extrapolated markers glide between updates).
"use strict";
(function () {
  const W = window.whereabouts;
  const $ = (id) => document.getElementById(id);
  let socket = null, reconnectDelay = 500, reconnectTimer = null, circles = [];

  // Draws what the view says now: the map (when there is one), the message over the map, the list.
  W.render = function () {
    const placed = W.placedMembers();
    W.drawMap(placed);
    const empty = $("empty");
    if (W.mapProblem) {
      empty.textContent = W.mapProblem;
      empty.hidden = false;
    } else {
      empty.hidden = placed.length > 0;
      if (W.state.view && placed.length === 0) {
        empty.textContent = W.state.view.members.length === 0
          ? "This circle has no members yet." : "No member has reported a position yet.";
      }
    }
    W.renderList();
  };

  // Marks the page's own calls, so that a 401 comes without a basic-auth challenge: the page
  // goes to its login form instead of the browser opening a password dialog.
  const SCRIPT = { "X-Requested-With": "XMLHttpRequest" };

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
    const response = await fetch("api/circles", { cache: "no-store", headers: SCRIPT });
    if (response.status === 401) { location.href = "login"; return new Promise(() => {}); }  // the session ended
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

  // The summary badges, and the selector's online count for this circle.
  function updateSummary(view) {
    const counts = W.renderSummary(view);
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
      W.state.deliveryLag = Date.now() / 1000 - view.generatedAt;
      document.body.dataset.generatedAt = view.generatedAt;
      updateSummary(view);
      W.render();
    };
    ws.onclose = (event) => {
      if (socket !== ws) return;
      if (event.code === 1008) { location.href = "login"; return; }  // the login ended (logout, new password)
      retry();
    };
  }

  function retry() {
    socket = null;
    setConnection("reconnecting in " + Math.round(reconnectDelay / 1000 * 10) / 10 + " s", false);
    reconnectTimer = setTimeout(() => { start().catch(retry); }, reconnectDelay);
    reconnectDelay = Math.min(10000, reconnectDelay * 2);
  }

  // Shows who is logged in, and the log-out button, when the dashboard has logins.
  async function showAccount() {
    const response = await fetch("api/me", { cache: "no-store", headers: SCRIPT });
    if (!response.ok) return;
    const me = await response.json();
    if (me.open || !me.user) return;
    $("whoami").textContent = me.user;
    $("logout").hidden = false;
  }

  async function start() {
    showAccount().catch(() => {});
    await loadCircles();
    connect();
  }

  // Starts showing the selected circle from scratch.
  function showCircle() {
    history.replaceState(null, "", "#" + encodeURIComponent(selectedCircle()));
    W.state.view = null;
    W.clearList();
    W.setAuto(true);
    connect();
  }

  $("circle").addEventListener("change", showCircle);
  setInterval(() => { if (socket) W.refreshCircles().catch(() => {}); }, 30000);
  window.addEventListener("resize", () => { W.resizeMap(); if (W.state.view) W.render(); });
  setConnection("connecting…", false);
  if (W.mapProblem) W.render();
  setInterval(() => { if (W.state.view) W.render(); }, 250);
  start().catch(retry);
})();
