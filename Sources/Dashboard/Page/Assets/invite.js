// The invite dialog for circle admins (docs/owntracks.md, "Add a phone"): asks the dashboard to
// run `whereabouts-sub invite` for a user and device of a circle, then shows the QR code the
// phone scans, the owntracks:///config?inline= link and the .otrc file; or revokes the member.
// The button shows only when GET api/invites names circles this login administers.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const HEADERS = { "Content-Type": "application/json", "X-Requested-With": "XMLHttpRequest" };
  let fileURL = null, armedRevoke = null;

  function showError(text) {
    const error = $("invite-error");
    error.textContent = text || "";
    error.hidden = !text;
  }

  // The answer's sentence, or one made from the status when the body is not the API's JSON.
  async function failure(response) {
    if (response.status === 401) { location.href = "login"; return "Your login ended; log in again."; }
    try {
      const body = await response.json();
      if (body && body.message) return body.message;
    } catch (e) { /* not JSON: a proxy's page */ }
    return "The dashboard answered " + response.status + "; try again, or ask the operator to look at its log.";
  }

  function fields() {
    return {
      circle: $("invite-circle").value,
      user: $("invite-user").value.trim(),
      device: $("invite-device").value.trim(),
      tid: $("invite-tid").value.trim(),
    };
  }

  function resetRevoke() {
    armedRevoke = null;
    $("invite-revoke").textContent = "Revoke…";
  }

  function showInvite(answer) {
    $("invite-qr").src = "data:image/png;base64," + answer.png;
    $("invite-link").href = answer.link;
    if (fileURL) URL.revokeObjectURL(fileURL);
    fileURL = URL.createObjectURL(new Blob([answer.otrc], { type: "application/json" }));
    $("invite-otrc").href = fileURL;
    $("invite-otrc").download = answer.file;
    const joined = answer.joined.length ? " Added to " + answer.joined.join(", ") + "." : "";
    const trees = answer.trees.length ? " The app shows the members of " + answer.trees.join(", ") + "."
      : " None of their circles is shared with the apps (owntracks: true), so the app shows no friends.";
    $("invite-summary").textContent = answer.user + "/" + answer.device + " logs in as " + answer.account +
      ", in " + answer.circles.join(", ") + "." + joined + trees;
    $("invite-result").hidden = false;
    document.body.dataset.invite = "shown";
  }

  async function invite(event) {
    event.preventDefault();
    resetRevoke();
    const f = fields();
    if (!f.user || !f.device) { showError("Give the member's user name and device name."); return; }
    showError("");
    $("invite-make").disabled = true;
    try {
      const response = await fetch("api/circles/" + encodeURIComponent(f.circle) + "/invites", {
        method: "POST", cache: "no-store", headers: HEADERS,
        body: JSON.stringify({ user: f.user, device: f.device, tid: f.tid || null }),
      });
      if (!response.ok) { $("invite-result").hidden = true; showError(await failure(response)); return; }
      showInvite(await response.json());
    } catch (e) {
      showError("The dashboard cannot be reached (" + e.message + "); check the connection and try again.");
    } finally {
      $("invite-make").disabled = false;
    }
  }

  // Revoking takes the member out of every circle and deletes their account: a second click confirms.
  async function revoke() {
    const f = fields();
    if (!f.user || !f.device) { showError("Give the user name and device name of the member to revoke."); return; }
    const key = f.circle + "/" + f.user + "/" + f.device;
    if (armedRevoke !== key) {
      armedRevoke = key;
      $("invite-revoke").textContent = "Revoke " + f.user + "/" + f.device + " from every circle?";
      return;
    }
    resetRevoke();
    showError("");
    const path = ["api/circles", f.circle, "invites", f.user, f.device].map((p, i) => i ? encodeURIComponent(p) : p).join("/");
    try {
      const response = await fetch(path, { method: "DELETE", cache: "no-store", headers: HEADERS });
      if (!response.ok) { showError(await failure(response)); return; }
      const answer = await response.json();
      $("invite-result").hidden = true;
      $("invite-done").textContent = answer.done.join(" ");
      $("invite-done").hidden = false;
      document.body.dataset.invite = "revoked";
    } catch (e) {
      showError("The dashboard cannot be reached (" + e.message + "); check the connection and try again.");
    }
  }

  function open() {
    const circle = $("invite-circle"), current = $("circle").value;
    if ([...circle.options].some((o) => o.value === current)) circle.value = current;
    showError("");
    resetRevoke();
    $("invite-done").hidden = true;
    $("invite").showModal();
    $("invite-user").focus();
  }

  async function start() {
    const response = await fetch("api/invites", { cache: "no-store", headers: { "X-Requested-With": "XMLHttpRequest" } });
    if (!response.ok) return;
    const answer = await response.json();
    if (!answer.enabled || !answer.circles.length) return;
    const select = $("invite-circle");
    for (const id of answer.circles) {
      const option = document.createElement("option");
      option.value = id;
      option.textContent = id;
      select.appendChild(option);
    }
    $("invite-open").hidden = false;
    document.body.dataset.invites = "ready";
  }

  $("invite-open").addEventListener("click", open);
  $("invite-form").addEventListener("submit", invite);
  $("invite-revoke").addEventListener("click", revoke);
  $("invite-close").addEventListener("click", () => $("invite").close());
  for (const id of ["invite-user", "invite-device", "invite-circle"]) $(id).addEventListener("input", resetRevoke);
  start().catch(() => {});
})();
