// The member list and the status summary above it: every member of the circle with status, age,
// speed and direction, accuracy, battery and "predicted" while extrapolated, and the card's face.
"use strict";
(function () {
  const W = window.whereabouts;
  const $ = (id) => document.getElementById(id);
  const rows = new Map();

  // Counts members per status into the summary badges; returns the counts.
  W.renderSummary = function (view) {
    const counts = { online: 0, stationary: 0, overdue: 0, stale: 0, offline: 0, gone: 0, unknown: 0 };
    for (const m of view.members) counts[m.status] = (counts[m.status] || 0) + 1;
    const summary = $("summary");
    summary.replaceChildren();
    for (const status of ["online", "stationary", "overdue", "stale", "offline", "gone", "unknown"]) {
      if (counts[status] === 0 && status !== "online") continue;
      const badge = document.createElement("span");
      badge.className = "badge " + status;
      badge.textContent = counts[status] + " " + status;
      summary.appendChild(badge);
    }
    return counts;
  };

  W.clearList = function () {
    rows.forEach((li) => li.remove());
    rows.clear();
    $("summary").replaceChildren();
  };

  function detail(m, p) {
    const at = W.placeText(m);
    if (m.status === "gone") {
      const silent = W.state.view.generatedAt + W.secondsSinceView() - (m.fix ? m.fix.tst : m.statusSince);
      return "not on the map: nothing heard for " + W.formatDuration(silent);
    }
    if (!p && m.privacy === "place") return at || (m.status === "unknown" ? "no news yet" : "away");
    if (!p && m.privacy === "hidden") return "shares no position with this circle";
    if (!p) return at || "no position yet";
    const parts = at ? [at, W.formatAge(p.age)] : [W.formatAge(p.age)];
    if (typeof m.speed === "number") {
      parts.push(Math.round(m.speed * 3.6) + " km/h" + (typeof m.course === "number" && m.speed > 0.5 ? " " + W.compass(m.course) : ""));
    }
    if (p.position.extrapolated) parts.push("predicted");
    if (m.fix.acc) parts.push("±" + m.fix.acc + " m");
    if (typeof m.fix.batt === "number") parts.push("batt " + m.fix.batt + " %");
    return parts.join(" · ");
  }

  // "3 reports not confirmed for 5 min": what the member's publisher said in its newest report
  // about reports no subscriber's receipt covers yet (docs/receipts.md); shown past a minute.
  function delivery(m) {
    if (!(m.unconfirmed > 0) || typeof m.unconfirmedSince !== "number") return "";
    const waited = W.state.view.generatedAt + W.secondsSinceView() - m.unconfirmedSince;
    if (waited < 60) return "";
    return m.unconfirmed + (m.unconfirmed === 1 ? " report" : " reports") + " not confirmed for " + W.formatDuration(waited);
  }

  W.renderList = function () {
    const view = W.state.view, list = $("members");
    if (!view) return;
    const placed = new Map(W.placedMembers().map((p) => [W.memberKey(p.member), p]));
    const seen = new Set();
    for (const m of view.members) {
      const key = W.memberKey(m);
      seen.add(key);
      let li = rows.get(key);
      if (!li) {
        li = document.createElement("li");
        li.innerHTML = '<span class="swatch"></span><span class="who"></span><span class="state"></span><span class="detail"></span>';
        li.addEventListener("click", () => W.focusMember(key));
        rows.set(key, li);
      }
      list.appendChild(li);
      li.className = m.status;
      li.dataset.user = m.user;
      li.dataset.device = m.device;
      const swatch = li.querySelector(".swatch");
      swatch.style.background = W.memberColor(m);
      W.setText(swatch, W.initials(m.name));
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
      W.setText(li.querySelector(".state"), m.status);
      li.dataset.place = m.place || "";
      const unconfirmed = delivery(m);
      W.setText(li.querySelector(".detail"), detail(m, placed.get(key)) + (unconfirmed ? " · " + unconfirmed : ""));
    }
    for (const [key, li] of rows) {
      if (!seen.has(key)) { li.remove(); rows.delete(key); }
    }
  };
})();
