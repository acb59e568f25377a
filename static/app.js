// Scorekeeper's small client: keypad, recent tables, copy links, keep the screen awake.
// No inline scripts anywhere (the Content-Security-Policy forbids them).
(function () {
  "use strict";
  var RECENT_KEY = "scorekeeper.recent";
  // the page's words in its language (base.html's data-words); English if absent
  var WORDS = {};
  try { WORDS = JSON.parse(document.body.getAttribute("data-words") || "{}"); } catch (e) { WORDS = {}; }
  function say(key, fallback, values) {
    var text = WORDS[key] || fallback;
    Object.keys(values || {}).forEach(function (name) { text = text.split("%(" + name + ")s").join(values[name]); });
    return text;
  }
  var LANG = document.documentElement.lang || undefined;

  // ---- score pad keypad: drives the selected points field without the phone keyboard
  var activeInput = null;
  function selectInput(input) {
    if (activeInput) activeInput.classList.remove("active");
    activeInput = input;
    if (input) input.classList.add("active");
  }
  function initPad(root) {
    var pad = root.querySelector ? root.querySelector("#pad") : null;
    if (!pad) { activeInput = null; return; }
    var inputs = pad.querySelectorAll(".pad-input");
    inputs.forEach(function (input) {
      input.setAttribute("inputmode", "none"); // the keypad below types; no OS keyboard on top of it
      input.addEventListener("focus", function () { selectInput(input); });
      input.addEventListener("click", function () { selectInput(input); });
    });
    heldPadRound = null;
    restorePadDraft(pad, inputs);
    var invalid = pad.querySelector(".pad-row.invalid .pad-input");
    selectInput(invalid || inputs[0] || null);
  }

  // ---- what was typed on the pad outlives a reload (a phone that slept and dropped
  // the page, a reload on bad Wi-Fi), in this tab only. It is bound to the round it was
  // typed for: when the page comes back showing another round, that round was saved
  // (here, with its answer lost, or on another phone), and typing it in again would
  // save it twice, so the draft is dropped.
  var PAD_DRAFT = "scorekeeper.pad:";
  function padRound(pad) {
    var round = pad.querySelector("input[name=round]");
    var edited = pad.querySelector("input[name=supersedes]");
    return (round ? round.value : "") + (edited ? "/" + edited.value : "");
  }
  function padDraftKey(pad) { return PAD_DRAFT + pad.getAttribute("action"); }
  var heldPadRound = null; // the round the poll sent while points were typed
  function padHasTyping(pad) {
    return Array.prototype.some.call(pad.querySelectorAll(".pad-input"), function (input) { return input.value; });
  }
  function savePadDraft(pad) {
    var fields = {};
    var typed = false;
    pad.querySelectorAll(".pad-input").forEach(function (input) {
      fields[input.name] = input.value;
      if (input.value) typed = true;
    });
    var round = pad.querySelector("#pad-round");
    if (!typed && heldPadRound !== null && round) {
      round.innerHTML = heldPadRound; // our own server's fragment, as the poll sent it
      heldPadRound = null;
    }
    try {
      if (typed) sessionStorage.setItem(padDraftKey(pad), JSON.stringify({ round: padRound(pad), fields: fields }));
      else sessionStorage.removeItem(padDraftKey(pad));
    } catch (e) { /* storage full or disabled: the page still holds it */ }
  }
  function restorePadDraft(pad, inputs) {
    var draft = null;
    try { draft = JSON.parse(sessionStorage.getItem(padDraftKey(pad)) || "null"); } catch (e) { return; }
    if (!draft || !draft.fields) return;
    if (draft.round !== padRound(pad)) {
      try { sessionStorage.removeItem(padDraftKey(pad)); } catch (e) { /* nothing kept */ }
      return;
    }
    // a pad the server filled (what was sent, shown again with its error) wins
    if (padHasTyping(pad)) return;
    var restored = false;
    inputs.forEach(function (input) {
      var value = draft.fields[input.name];
      if (typeof value === "string" && value) { input.value = value.slice(0, 12); restored = true; }
    });
    if (!restored) return;
    var note = pad.querySelector(".pad-restored");
    if (note) note.hidden = false;
    var folded = pad.closest("details");
    if (folded) folded.open = true;
  }
  document.addEventListener("input", function (ev) {
    var pad = ev.target.closest ? ev.target.closest("#pad") : null;
    if (pad && ev.target.classList.contains("pad-input")) savePadDraft(pad);
  });
  document.addEventListener("click", function (ev) {
    var key = ev.target.closest ? ev.target.closest(".key") : null;
    if (!key || !activeInput) return;
    var value = activeInput.value.replace("−", "-");
    var k = key.getAttribute("data-key");
    if (k === "back") value = value.slice(0, -1);
    else if (k === "sign") value = value.charAt(0) === "-" ? value.slice(1) : "-" + value;
    else if (value.replace("-", "").length < 5) value = (value === "0" ? "" : value) + k;
    activeInput.value = value;
    var pad = activeInput.closest("#pad");
    if (pad) savePadDraft(pad);
  });

  // ---- copy a link
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest ? ev.target.closest("[data-copy]") : null;
    if (!btn) return;
    var text = btn.getAttribute("data-copy");
    var done = function () { btn.textContent = say("copied", "Copied"); };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done);
    else {
      var field = btn.parentNode.querySelector("input.link");
      if (field) { field.select(); try { document.execCommand("copy"); done(); } catch (e) { /* select is enough */ } }
    }
  });

  // ---- recent tables live in this browser only, never in a server-side list
  function readRecent() {
    try { return JSON.parse(localStorage.getItem(RECENT_KEY) || "[]"); } catch (e) { return []; }
  }
  // what tells one table from another on the home page: its players, when it was
  // started and last seen, whether it is over, and who leads (read from the standings
  // as this phone last saw them)
  function tableState() {
    var standings = document.getElementById("standings");
    if (!standings) return {};
    var first = standings.querySelector(".total-row");
    var winners = Array.prototype.map.call(standings.querySelectorAll(".total-row.winner .points"),
      function (el) { return el.getAttribute("data-player"); });
    var played = document.querySelector("#history li.round:not(.undone)");
    var lead = played && first && first.querySelector(".points");
    return {
      finished: !!standings.querySelector(".status.finished"),
      winners: winners,
      leader: lead ? lead.getAttribute("data-player") : "",
      leaderShown: lead ? lead.textContent.trim() : ""
    };
  }
  function rememberTable() {
    var meta = document.getElementById("table-meta");
    if (!meta) return;
    var url = meta.getAttribute("data-url");
    var list = readRecent().filter(function (t) { return t.url !== url; });
    var state = tableState();
    list.unshift({ url: url, name: meta.getAttribute("data-name"), game: meta.getAttribute("data-game"),
                   access: meta.getAttribute("data-access"), seen: Date.now(),
                   players: meta.getAttribute("data-players") || "", created: meta.getAttribute("data-created") || "",
                   finished: !!state.finished, winners: state.winners || [], leader: state.leader || "",
                   leaderShown: state.leaderShown || "" });
    try { localStorage.setItem(RECENT_KEY, JSON.stringify(list.slice(0, 12))); } catch (e) { /* private mode */ }
  }
  document.addEventListener("htmx:oobAfterSwap", function (ev) {
    if (ev.detail.target && ev.detail.target.id === "standings") rememberTable();
  });
  document.addEventListener("htmx:afterSettle", function (ev) {
    if (ev.target && ev.target.id === "board") rememberTable();
  });
  function when(ms) {
    var d = new Date(ms);
    if (isNaN(d.getTime())) return "";
    var today = new Date();
    var time = d.toLocaleTimeString(LANG, { hour: "2-digit", minute: "2-digit" });
    if (d.toDateString() === today.toDateString()) return time;
    return d.toLocaleDateString(LANG, { weekday: "short", day: "numeric", month: "short" }) + " " + time;
  }
  function showRecent() {
    var ul = document.getElementById("recent");
    if (!ul) return;
    var list = readRecent();
    if (!list.length) return;
    list.forEach(function (t) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = t.url;
      var name = document.createElement("strong");
      name.textContent = t.name; // textContent: names are never parsed as HTML
      var game = document.createElement("small");
      game.textContent = t.game + (t.access === "watch" ? " · " + say("watching", "watching") : "");
      var players = document.createElement("span");
      players.className = "recent-players";
      players.textContent = t.players || "";
      var state = document.createElement("small");
      state.className = "recent-state";
      var started = when(Date.parse(t.created || ""));
      var status = t.finished ?
        (t.winners && t.winners.length ? say("won", "Finished · won by %(names)s", { names: t.winners.join(", ") }) : say("finished", "Finished")) :
        (t.leader ? say("leads", "In play · %(name)s leads (%(points)s)", { name: t.leader, points: t.leaderShown }) : say("in_play", "In play"));
      state.textContent = status + (started ? " · " + say("started", "started %(when)s", { when: started }) : "") +
        " · " + say("seen", "seen %(when)s", { when: when(t.seen) });
      a.appendChild(name); a.appendChild(game); a.appendChild(players); a.appendChild(state);
      li.appendChild(a); ul.appendChild(li);
    });
    document.getElementById("recent-card").hidden = false;
  }

  // ---- a tap that ends or undoes something asks for a second tap on the same button
  // ("Tap again to …", data-confirm), never a dialog; the first tap sends nothing, and
  // after a few seconds the button is as it was. Without script it acts at once.
  var CONFIRM_MS = 4000;
  function disarm(btn) {
    if (!btn.hasAttribute("data-armed")) return;
    btn.textContent = btn.getAttribute("data-armed");
    btn.removeAttribute("data-armed");
    btn.classList.remove("armed");
  }
  // (a click, caught before htmx sees it: a form's submit button and an hx-post
  // button alike)
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest ? ev.target.closest("[data-confirm]") : null;
    if (!btn || btn.disabled) return;
    if (btn.hasAttribute("data-armed")) { disarm(btn); return; } // the second tap: send it
    ev.preventDefault();
    ev.stopImmediatePropagation();
    btn.setAttribute("data-armed", btn.textContent);
    btn.textContent = btn.getAttribute("data-confirm");
    btn.classList.add("armed");
    setTimeout(function () { disarm(btn); }, CONFIRM_MS);
  }, true);

  // ---- start form: show only the chosen game's settings
  function syncSettings() {
    var chosen = document.querySelector("input[name=game]:checked");
    document.querySelectorAll("fieldset.settings").forEach(function (fs) {
      fs.hidden = !chosen || fs.getAttribute("data-game") !== chosen.value;
    });
  }
  document.addEventListener("change", function (ev) {
    if (ev.target.name === "game") syncSettings();
  });

  // ---- start form: the first-dealer menu offers the names as typed, one per seat
  // named so far (a seat left blank keeps its number, so the choice still names it)
  // (a name is what shows of it: the server drops the invisible characters too)
  var INVISIBLE = /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]/g;
  function shownName(field) { return field.value.replace(INVISIBLE, "").trim(); }
  function syncDealers() {
    var select = document.getElementById("first_dealer-field");
    if (!select) return;
    var fields = document.querySelectorAll(".name-list input[name=player]");
    var last = -1;
    fields.forEach(function (f, i) { if (shownName(f)) last = i; });
    var label = select.getAttribute("data-seat-label") || "";
    Array.prototype.forEach.call(select.options, function (option, i) {
      var name = fields[i] ? shownName(fields[i]) : "";
      option.textContent = name || label.replace("0", String(i + 1));
      var shown = i <= Math.max(last, 0);
      option.hidden = !shown;
      option.disabled = !shown;
    });
    if (select.selectedIndex > Math.max(last, 0)) select.selectedIndex = 0;
  }
  document.addEventListener("input", function (ev) {
    if (ev.target.closest && ev.target.closest(".name-list")) syncDealers();
  });

  // ---- a refused start: the field to fix is focused, and its message brought to the
  // top of the screen with the field under it (autofocus alone centres the field and
  // can leave its message off-screen above)
  function showRefusedField() {
    var field = document.querySelector("form.start [aria-invalid=true][autofocus]");
    if (!field) return;
    field.focus({ preventScroll: true });
    var message = document.getElementById(field.getAttribute("aria-describedby") || "");
    (message || field).scrollIntoView({ block: "start" });
  }

  // ---- keep the screen awake at the table
  var wakeLock = null;
  function showWake(text) {
    var el = document.getElementById("wake");
    if (el) { el.textContent = text; el.hidden = false; }
  }
  function videoFallback() {
    // Wake Lock needs a secure context; on plain http a muted looping video keeps phones awake
    var video = document.getElementById("keep-awake");
    if (!video || !HTMLCanvasElement.prototype.captureStream) return;
    var canvas = document.createElement("canvas");
    canvas.width = 2; canvas.height = 2;
    var ctx = canvas.getContext("2d");
    var tick = 0;
    setInterval(function () { ctx.fillStyle = (tick++ % 2) ? "#000" : "#010101"; ctx.fillRect(0, 0, 2, 2); }, 1000);
    video.srcObject = canvas.captureStream(1);
    var play = function () {
      video.play().then(function () { showWake(say("awake_video", "Screen kept awake (video)")); }).catch(function () {
        showWake(say("awake_tap", "Tap anywhere to keep the screen awake"));
      });
    };
    play();
    document.addEventListener("click", play, { once: true });
  }
  function keepAwake() {
    if (!document.getElementById("table-meta")) return;
    if ("wakeLock" in navigator && window.isSecureContext) {
      navigator.wakeLock.request("screen").then(function (lock) {
        wakeLock = lock;
        showWake(say("awake", "Screen kept awake"));
      }).catch(videoFallback);
    } else {
      videoFallback();
    }
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && wakeLock !== null && wakeLock.released) keepAwake();
  });

  // ---- bad Wi-Fi: a tap or the table's poll that gets no answer says so, instead of
  // a tap that seems ignored or scores that silently stop moving. A tap's message stays
  // until a tap gets through (or it is tapped away); the poll's until a poll does.
  var noAnswer = { tap: false, poll: false };
  function showNetStatus() {
    var el = document.getElementById("net-status");
    if (!el) return;
    var which = noAnswer.tap ? "tap" : (noAnswer.poll ? "poll" : null);
    el.hidden = which === null;
    document.body.classList.toggle("net-trouble", which !== null);
    if (which !== null) el.textContent = el.getAttribute("data-" + which);
  }
  function isPoll(ev) {
    // the element that sent the request: a poll that brings changes replaces its own
    // element, and htmx then tells the page's ancestors, as ``elt``, that it ended
    var config = ev.detail.requestConfig;
    var sender = (config && config.elt) || ev.detail.elt;
    return !!(sender && sender.id === "live");
  }
  // a game screen's tap that got no answer: its id, until the tap is answered or a
  // redraw of the panel shows the deal holds it (data-taps: the log's latest tap ids),
  // when "tap again" is no longer true (a key of a keypad would then type twice)
  var lostTap = null;
  function onNoAnswer(ev) {
    var poll = isPoll(ev);
    noAnswer[poll ? "poll" : "tap"] = true;
    var elt = ev.detail.elt;
    if (!poll) lostTap = elt && elt.getAttribute ? elt.getAttribute("data-tap-id") : null;
    showNetStatus();
  }
  function lostTapArrived() {
    if (!noAnswer.tap || !lostTap) return;
    var arrived = Array.prototype.some.call(document.querySelectorAll("[data-taps]"), function (panel) {
      return panel.getAttribute("data-taps").split(" ").indexOf(lostTap) >= 0;
    });
    if (!arrived) return;
    noAnswer.tap = false;
    lostTap = null;
    showNetStatus();
  }
  document.addEventListener("htmx:oobAfterSwap", lostTapArrived);

  // ---- on a slow line a poll sent before a tap can be answered after the tap's own
  // answer, bringing the version of the table that answer already drew: swapped in,
  // it would take back what the tap's answer said (an edit's message on the board).
  // A poll's answer that brings no newer version than this phone shows is dropped.
  // (Its #live was replaced meanwhile, so the listener sits on the poll's element.)
  function versionIn(url) {
    var found = /[?&;]v=(\d+)/.exec(url || "");
    return found ? parseInt(found[1], 10) : null;
  }
  function shownVersion() {  // the table version this phone shows (its poll's URL)
    var live = document.getElementById("live");
    return live ? versionIn(live.getAttribute("hx-get")) : null;
  }
  function dropOldNews(ev) {
    var shown = shownVersion();
    var tag = /id="live"[^>]*/.exec(ev.detail.serverResponse || "");
    var brought = tag ? versionIn(tag[0]) : null;
    if (shown !== null && brought !== null && brought <= shown) ev.detail.shouldSwap = false;
  }
  document.addEventListener("htmx:configRequest", function (ev) {
    var elt = ev.detail.elt;
    if (!elt || elt.id !== "live" || elt.dataset.checksSwap) return;
    elt.dataset.checksSwap = "1"; // its answer's swap checked once: old news, a press
    elt.addEventListener("htmx:beforeSwap", dropOldNews);
    elt.addEventListener("htmx:beforeSwap", waitForLift);
  });
  // ---- a mouse press is a click only where it ends on the button it began on, and a
  // finger's tap lands on whatever is under it as it lifts: a poll's redraw while a
  // press lasts would replace that button, or move another under the finger, and the
  // tap would be lost or land elsewhere. While a press lasts, the poll's news is left
  // for the next poll (the marker stays where it was, so that poll brings it again).
  // A press held longer than a tap holds nothing.
  var PRESS_MS = 1500;
  var pressed = {}; // pointer id → when it went down
  function pressing() {
    var now = Date.now();
    return Object.keys(pressed).some(function (id) { return now - pressed[id] < PRESS_MS; });
  }
  document.addEventListener("pointerdown", function (ev) { pressed[ev.pointerId] = Date.now(); }, true);
  ["pointerup", "pointercancel"].forEach(function (type) {
    document.addEventListener(type, function (ev) { delete pressed[ev.pointerId]; }, true);
  });
  window.addEventListener("blur", function () { pressed = {}; });
  function waitForLift(ev) {
    if (pressing()) ev.detail.shouldSwap = false;
  }
  document.addEventListener("htmx:sendError", onNoAnswer);
  document.addEventListener("htmx:timeout", onNoAnswer);
  document.addEventListener("htmx:afterRequest", function (ev) {
    var xhr = ev.detail.xhr;
    if (!xhr || !xhr.status) return; // no answer at all: onNoAnswer said so
    noAnswer.poll = false;
    if (!isPoll(ev)) { noAnswer.tap = false; lostTap = null; }
    showNetStatus();
  });
  // an error answered to a tap lands in the message area at the top: bring it into
  // view (the poll's own answers never move the page)
  document.addEventListener("htmx:afterSwap", function (ev) {
    if (ev.detail.target && ev.detail.target.id === "flash" && !isPoll(ev) &&
        ev.detail.xhr && ev.detail.xhr.status >= 400) ev.detail.target.scrollIntoView({ block: "start" });
  });
  // a refusal answered with the board to a form below it (a rename in "Players and
  // table"): its message heads the board, far above the form, so it is brought into
  // view. (A form inside the board is replaced with it, and marks its own fields.)
  document.addEventListener("htmx:afterSettle", function (ev) {
    var xhr = ev.detail.xhr;
    if (!writesBoard(ev) || !xhr || xhr.status < 400) return;
    var config = ev.detail.requestConfig;
    var sender = (config && config.elt) || ev.detail.elt;
    var board = document.getElementById("board");
    if (!sender || !sender.isConnected || !board || board.contains(sender)) return;
    var refusal = board.querySelector(".board-flash .flash.error");
    if (refusal) refusal.scrollIntoView({ block: "start" });
  });
  // a tap refused on a game screen is answered with its panel, the refusal heading it,
  // maybe far above the button tapped (a card picker scrolled down to): the refusal is
  // brought into view, as little as needed, so the tap is not seen to do nothing
  document.addEventListener("htmx:afterSettle", function (ev) {
    var xhr = ev.detail.xhr;
    if (isPoll(ev) || writesBoard(ev) || !xhr || xhr.status < 400) return;
    var board = document.getElementById("board");
    var alerts = board ? Array.prototype.filter.call(
      board.querySelectorAll("[data-deal-version] [role=alert]"), shown) : [];
    // the answer's own, not a problem the panel showed before the tap (a hand that
    // does not add up), unless it is the same refusal again
    var refusal = alerts.filter(function (el) { return saidBefore.indexOf(textOf(el)) < 0; })[0] || alerts[0];
    if (!refusal) return;
    var box = refusal.getBoundingClientRect();
    var top = parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0;
    if (box.top < top || box.bottom > window.innerHeight) refusal.scrollIntoView({ block: "nearest" });
  });
  // ---- a write answered with the whole board (every Save: the game screens', the score
  // pad's, End game) disables what sent it until its answer arrives, and the board that
  // answer brings ignores taps for a moment: the second tap of a double tap on Save
  // never lands on whatever the next deal shows where Save was (pointer-events off, so
  // the tap falls on the page behind it and does nothing).
  var QUIET_MS = 500;
  function writesBoard(ev) {
    var target = ev.detail.target;
    return !isPoll(ev) && !!(target && target.id === "board");
  }
  document.addEventListener("htmx:beforeRequest", function (ev) {
    var elt = ev.detail.elt;
    if (!writesBoard(ev) || !elt || !elt.setAttribute || elt.hasAttribute("hx-disabled-elt")) return;
    if (elt.tagName === "BUTTON") elt.setAttribute("hx-disabled-elt", "this");
    else if (elt.tagName === "FORM") elt.setAttribute("hx-disabled-elt", "find button");
  });
  // (on the page's body, which outlives the swap: the old board is gone by then)
  var quietTimer = null;
  document.addEventListener("htmx:beforeSwap", function (ev) {
    if (!writesBoard(ev) || !ev.detail.shouldSwap) return;
    document.body.classList.add("board-quiet");
    clearTimeout(quietTimer);
    quietTimer = setTimeout(function () { document.body.classList.remove("board-quiet"); }, QUIET_MS);
  });

  document.addEventListener("click", function (ev) {
    if (ev.target.id !== "net-status") return;
    noAnswer.tap = false;
    lostTap = null;
    showNetStatus();
  });

  // ---- a game screen's taps: each tap button's request carries a tap id made here, so
  // the server applies it once. The id stays on the button until the answer redraws
  // the panel: tapping again after a lost answer resends the same id (applied once),
  // and the tap itself says what was meant ("2♣ played by Ola"), never a toggle.
  // The table version this phone shows goes along, so a tap's answer can move the
  // poll on only when nothing else changed meanwhile.
  function newTapId() {
    var bytes = new Uint8Array(12);
    (window.crypto || window.msCrypto).getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }
  document.addEventListener("htmx:configRequest", function (ev) {
    var elt = ev.detail.elt;
    if (!elt || !elt.closest) return;
    sendPanel(elt, ev.detail.parameters);
    if (!elt.hasAttribute("data-tap")) return;
    var id = elt.getAttribute("data-tap-id");
    if (!id) { id = newTapId(); elt.setAttribute("data-tap-id", id); }
    ev.detail.parameters.tap_id = id;
    var seen = shownVersion();
    if (seen !== null) ev.detail.parameters.seen = String(seen);
  });

  // ---- a game panel's buttons are the same from one version of the deal to the next:
  // what a request from the panel sends of the version it shows is the panel's
  // (data-deal-version), read when it is sent. Its parts drawn as the answer before
  // drew them ([data-frag], the key of what each is made of), and the table's parts
  // as they were (the history, the standings), stay on the phone: a request from the
  // panel, and the poll, name those it shows ("have"), and the answer writes each of
  // them as a hole ([data-frag-kept]) this phone fills with its own copy, as it was
  // when the request left (a redraw meanwhile loses none).
  var keptParts = {}, keptCount = 0;
  function sendPanel(elt, parameters) {
    // the poll (#live, outside the panel) names the parts too, not the deal's version:
    // its own v is the table's
    var poll = elt.id === "live";
    var panel = poll ? null : elt.closest("[data-deal-version]");
    if (!poll && !panel) return;
    if (panel && parameters.v === undefined) parameters.v = panel.getAttribute("data-deal-version");
    if (keptCount > 512) { keptParts = {}; keptCount = 0; }
    var keys = [];
    // the panel's parts and the table's (the history, the standings: fragments.kept_part)
    document.querySelectorAll("[data-frag]").forEach(function (part) {
      var key = part.getAttribute("data-frag");
      if (!keptParts[key]) keptCount++;
      keptParts[key] = part;
      keys.push(key);
    });
    if (keys.length) parameters.have = keys.join(" ");
  }
  function fillHoles(root) {
    var holes = root.querySelectorAll ? root.querySelectorAll("[data-frag-kept]") : [];
    for (var i = 0; i < holes.length; i++) {
      var part = keptParts[holes[i].getAttribute("data-frag-kept")];
      if (!part) return false;
      var copy = part.cloneNode(true);
      // a copy is a part drawn afresh: no tap of it is waiting for its answer, a button
      // htmx disabled while its request was out is enabled (as htmx's own copies for the
      // history make it), and one asking for a second tap asks no more (the original
      // went back, or was sent: only it is told, and it is no longer shown)
      var inFlight = "[data-tap-id], [class*=\"htmx-\"], [data-disabled-by-htmx], [data-armed]";
      [copy].concat(Array.prototype.slice.call(copy.querySelectorAll(inFlight))).forEach(function (el) {
        el.removeAttribute("data-tap-id");
        Array.prototype.slice.call(el.classList).forEach(function (c) { if (c.indexOf("htmx-") === 0) el.classList.remove(c); });
        if (el.hasAttribute("data-disabled-by-htmx")) {
          el.removeAttribute("disabled");
          el.removeAttribute("data-disabled-by-htmx");
        }
        disarm(el);
      });
      holes[i].parentNode.replaceChild(copy, holes[i]);
    }
    return true;
  }
  document.addEventListener("htmx:oobBeforeSwap", function (ev) {
    if (!ev.detail.fragment || fillHoles(ev.detail.fragment)) return;
    // a part this phone never had (it cannot happen unless its memory was cleared):
    // the page as it stands instead
    ev.detail.shouldSwap = false;
    window.location.reload();
  });

  // ---- what this phone shows of a game screen (full or quick entry, whose cards are
  // open) is this phone's own, in sessionStorage, never the shared deal's. A scope
  // ([data-view-key]) shows the [data-view-only] parts of its value; [data-view-set]
  // buttons choose it. A choice lasts until the part it opened is done
  // ([data-view-done], e.g. that player's cards all in): then the scope shows what the
  // server says comes next (data-view-default), as a phone that never chose does.
  var VIEW = "scorekeeper.view:";
  function ownParts(scope, selector) {
    return Array.prototype.filter.call(scope.querySelectorAll(selector), function (el) {
      return el.parentNode.closest("[data-view-key]") === scope;
    });
  }
  function readView(scope) {
    var fallback = scope.getAttribute("data-view-default") || "";
    var stored = null;
    try { stored = JSON.parse(sessionStorage.getItem(VIEW + scope.getAttribute("data-view-key")) || "null"); } catch (e) { stored = null; }
    if (!stored || typeof stored.v !== "string") return fallback;
    var parts = ownParts(scope, "[data-view-only]");
    if (!parts.length) return stored.v;
    var part = parts.filter(function (el) { return el.getAttribute("data-view-only") === stored.v; })[0];
    if (!part || (part.hasAttribute("data-view-done") && !stored.done)) return fallback;
    return stored.v;
  }
  // a fold ([data-fold] on a <details>) stays as this phone left it when a tap's
  // answer or the poll redraws the panel
  var FOLD = "scorekeeper.fold:";
  document.addEventListener("toggle", function (ev) {
    var key = ev.target.getAttribute ? ev.target.getAttribute("data-fold") : null;
    if (!key) return;
    try { sessionStorage.setItem(FOLD + key, ev.target.open ? "open" : ""); } catch (e) { /* this page still shows it */ }
  }, true);
  function applyViews(root) {
    if (root.querySelectorAll) {
      root.querySelectorAll("details[data-fold]").forEach(function (el) {
        var stored = null;
        try { stored = sessionStorage.getItem(FOLD + el.getAttribute("data-fold")); } catch (e) { stored = null; }
        if (stored !== null && el.open !== (stored === "open")) el.open = stored === "open";
      });
    }
    var scopes = root.querySelectorAll ? root.querySelectorAll("[data-view-key]") : [];
    Array.prototype.forEach.call(scopes, function (scope) {
      var value = readView(scope);
      scope.setAttribute("data-view", value);
      ownParts(scope, "[data-view-only]").forEach(function (el) {
        el.hidden = el.getAttribute("data-view-only") !== value;
      });
      ownParts(scope, "[data-view-set]").forEach(function (btn) {
        btn.setAttribute("aria-pressed", btn.getAttribute("data-view-set") === value ? "true" : "false");
      });
      // a drawing that shows another part of itself in each view (the Pegs board:
      // the player's side in play, the whole board in set-up): data-viewbox-<view>
      ownParts(scope, "svg[data-viewbox-" + value + "]").forEach(function (svg) {
        svg.setAttribute("viewBox", svg.getAttribute("data-viewbox-" + value));
      });
    });
  }
  // a fold that opens with a choice (details[data-open-with=scope key][data-open-value]):
  // open while that scope shows its value (the score of the player whose cards are
  // open), folded otherwise; set again only when the choice changes, so a fold the
  // player opened by hand stays open through the poll
  function applyOpenWith() {
    document.querySelectorAll("details[data-open-with]").forEach(function (el) {
      var scope = document.querySelector('[data-view-key="' + el.getAttribute("data-open-with").replace(/["\\]/g, "\\$&") + '"]');
      var shown = scope ? scope.getAttribute("data-view") || "" : "";
      if (el.getAttribute("data-open-seen") === shown) return;
      el.setAttribute("data-open-seen", shown);
      el.open = shown === el.getAttribute("data-open-value");
    });
  }
  // in a scope of players' parts ([data-view-tap-chooses]), a tap inside a part (a
  // player's keypad, picker or hand) chooses it, as its button would: the phone stays
  // on the player it is entering while the server's data-view-default moves on (another
  // phone typed a sum there), until that part is done
  function choosePart(ev) {
    var part = ev.target.closest ? ev.target.closest("[data-view-only]") : null;
    if (!part || !ev.target.closest("button")) return;
    var scope = part.parentNode.closest("[data-view-key]");
    if (!scope || !scope.hasAttribute("data-view-tap-chooses")) return;
    if (ownParts(scope, "[data-view-only]").indexOf(part) < 0) return;
    var choice = { v: part.getAttribute("data-view-only"), done: part.hasAttribute("data-view-done") };
    try { sessionStorage.setItem(VIEW + scope.getAttribute("data-view-key"), JSON.stringify(choice)); } catch (e) { /* this page still shows it */ }
  }
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest ? ev.target.closest("[data-view-set]") : null;
    if (!btn) return choosePart(ev);
    var scope = btn.parentNode.closest("[data-view-key]");
    if (!scope) return;
    var value = btn.getAttribute("data-view-set");
    var part = ownParts(scope, "[data-view-only]").filter(function (el) { return el.getAttribute("data-view-only") === value; })[0];
    var choice = { v: value, done: !!(part && part.hasAttribute("data-view-done")) };
    try { sessionStorage.setItem(VIEW + scope.getAttribute("data-view-key"), JSON.stringify(choice)); } catch (e) { /* this page still shows it */ }
    applyViews(scope.parentNode);
    applyOpenWith();
  });
  // ---- folded parts ([data-keep]: a round's breakdown, the chart) stay as this phone
  // left them when another phone's change redraws the history
  var kept = {};
  document.addEventListener("toggle", function (ev) {
    var el = ev.target;
    if (el && el.hasAttribute && el.hasAttribute("data-keep")) kept[el.getAttribute("data-keep")] = el.open;
  }, true);
  function applyKept() {
    document.querySelectorAll("details[data-keep]").forEach(function (el) {
      var key = el.getAttribute("data-keep");
      if (Object.prototype.hasOwnProperty.call(kept, key) && el.open !== kept[key]) el.open = kept[key];
    });
  }
  document.addEventListener("htmx:afterSettle", applyKept);
  document.addEventListener("htmx:oobAfterSwap", applyKept);

  // ---- a control used from a keyboard keeps the focus when a tap's answer or the poll
  // redraws its panel: the control is replaced by its new self, and the focus, dropped
  // to the page's start, made the player find their place again from the top. The same
  // control is focused again; gone or disabled (a card just taken), the one now in its
  // place in the same group.
  var lastFocus = null;
  var GROUPS = "[role=group], form";
  function attrSelector(el, names) {
    return names.reduce(function (sel, name) {
      var v = name === "class" ? (el.className || "").split(/\s+/).filter(function (c) { return c && c.indexOf("htmx-") !== 0; }).join(" ") : el.getAttribute(name);
      return !v ? sel : sel + "[" + name + "=\"" + v.replace(/["\\]/g, "\\$&") + "\"]";
    }, el.tagName.toLowerCase());
  }
  function shown(el) { return !el.closest("[hidden]") && el.getClientRects().length > 0; }
  function usable(el) { return el && !el.disabled && shown(el); }
  // the groups this phone shows (a panel keeps the other players' pickers hidden)
  function shownGroups(scope, sel) { return Array.prototype.filter.call(scope.querySelectorAll(sel), shown); }
  document.addEventListener("focusin", function (ev) {
    var el = ev.target;
    var scope = el.parentNode && el.parentNode.closest ? el.parentNode.closest("[id]") : null;
    if (!scope || !el.matches(":focus-visible")) { lastFocus = null; return; }
    var group = el.parentNode.closest(GROUPS);
    if (!group || !scope.contains(group)) group = scope;
    var groupSel = group === scope ? null : attrSelector(group, ["role", "class"]);
    lastFocus = { scope: scope.id, tag: el.tagName,
                  control: attrSelector(el, ["id", "data-card", "name", "value", "data-key", "data-view-set", "data-step", "hx-post"]),
                  group: groupSel, groupIndex: groupSel ? shownGroups(scope, groupSel).indexOf(group) : -1,
                  index: Array.prototype.indexOf.call(group.querySelectorAll(el.tagName), el) };
  });
  document.addEventListener("pointerdown", function () { lastFocus = null; }, true);
  function keepFocus() {
    if (!lastFocus || (document.activeElement && document.activeElement !== document.body)) return;
    var scope = document.getElementById(lastFocus.scope);
    if (!scope) return;
    var el = scope.querySelector(lastFocus.control);
    if (!usable(el)) {
      var group = lastFocus.group ? shownGroups(scope, lastFocus.group)[lastFocus.groupIndex] : scope;
      var peers = group ? Array.prototype.slice.call(group.querySelectorAll(lastFocus.tag)) : [];
      el = peers.slice(lastFocus.index).concat(peers.slice(0, lastFocus.index).reverse()).filter(usable)[0];
    }
    if (usable(el)) el.focus({ preventScroll: true });
  }
  document.addEventListener("htmx:afterSettle", keepFocus);

  // ---- what a tap's answer says (a saved round, a refusal, a verdict, a screen's
  // notice) is read out: the board and the panels come back drawn whole, their
  // messages inside them, and a message new to the page is not announced by screen
  // readers. The lasting #announce region repeats what the answer brought that was
  // not there before (a refusal always, even when the same again).
  var MESSAGES = ".flash, .verdict, .field-error, [role=alert], [role=status]";
  var ALWAYS = ".flash.error, .verdict.no, .field-error, [role=alert]";
  var saidBefore = [];
  function messagesShown() {
    var board = document.getElementById("board");
    if (!board) return [];
    return Array.prototype.filter.call(board.querySelectorAll(MESSAGES), function (el) {
      return shown(el) && !el.parentNode.closest(MESSAGES) && el.textContent.trim();
    });
  }
  function textOf(el) { return el.textContent.replace(/\s+/g, " ").trim(); }
  var announceTimer = null;
  document.addEventListener("htmx:beforeRequest", function (ev) {
    if (!isPoll(ev)) saidBefore = messagesShown().map(textOf);
  });
  document.addEventListener("htmx:afterSettle", function (ev) {
    var region = document.getElementById("announce");
    if (!region || isPoll(ev)) return;
    var news = messagesShown().filter(function (el) {
      return el.matches(ALWAYS) || saidBefore.indexOf(textOf(el)) < 0;
    }).map(textOf);
    if (!news.length) return;
    // emptied first, so the same words said again are heard again
    region.textContent = "";
    clearTimeout(announceTimer);
    announceTimer = setTimeout(function () { region.textContent = news.join(" "); }, 50);
  });
  document.addEventListener("htmx:oobAfterSwap", keepFocus);

  document.addEventListener("htmx:afterSettle", function () { applyViews(document); applyOpenWith(); });
  document.addEventListener("htmx:oobAfterSwap", function () { applyViews(document); applyOpenWith(); });

  // ---- a board wider than its frame (the Pegs board zoomed in) scrolls sideways in it:
  // first shown centred (the player's side), then where the player left it, as a tap's
  // answer or the poll redraws it
  var boardScroll = null;
  document.addEventListener("scroll", function (ev) {
    if (ev.target.classList && ev.target.classList.contains("pg-board")) boardScroll = ev.target.scrollLeft;
  }, true);
  function placeBoards() {
    document.querySelectorAll(".pg-board").forEach(function (frame) {
      var room = frame.scrollWidth - frame.clientWidth;
      if (room > 0) frame.scrollLeft = boardScroll === null ? room / 2 : boardScroll;
    });
  }
  document.addEventListener("htmx:afterSettle", placeBoards);
  document.addEventListener("htmx:oobAfterSwap", placeBoards);
  document.addEventListener("DOMContentLoaded", placeBoards);

  document.addEventListener("DOMContentLoaded", function () {
    applyViews(document);
    applyOpenWith();
    initPad(document);
    rememberTable();
    showRecent();
    syncSettings();
    syncDealers();
    showRefusedField();
    keepAwake();
  });
  // The poll moves the pad on to the next round when another phone adds one, except
  // while this pad edits an old round, or holds points typed for the round it shows:
  // if another phone saved that round meanwhile, Save is then refused with a clear
  // message ("just entered on another phone") instead of storing the same deal twice
  // as the next round. Once the pad is empty again, it moves on to the round held back.
  document.addEventListener("htmx:oobBeforeSwap", function (ev) {
    if (!ev.detail.target || ev.detail.target.id !== "pad-round") return;
    var pad = document.getElementById("pad");
    if (!pad) return;
    if (pad.querySelector("input[name=supersedes]")) { ev.preventDefault(); return; }
    if (padHasTyping(pad)) {
      var fresh = ev.detail.fragment && ev.detail.fragment.querySelector ?
        ev.detail.fragment.querySelector("#pad-round") : null;
      if (fresh) heldPadRound = fresh.innerHTML;
      ev.preventDefault();
    } else {
      heldPadRound = null;
    }
  });
  document.addEventListener("htmx:afterSettle", function (ev) {
    if (ev.target && ev.target.id === "board") initPad(document);
  });

  // ---- a control that opens something of this phone's own (Szaman's card changer,
  // data-clears="<selector>") empties what the one before opened: one open at a time
  document.addEventListener("htmx:beforeRequest", function (ev) {
    var elt = ev.detail.elt;
    var which = elt && elt.getAttribute ? elt.getAttribute("data-clears") : null;
    if (!which) return;
    document.querySelectorAll(which).forEach(function (box) { box.textContent = ""; });
  });
})();
