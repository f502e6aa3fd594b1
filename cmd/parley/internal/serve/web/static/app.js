// Parley's web view. The pages are rendered on the server; this script only
// follows a session live through the API's event stream. Model text is only
// ever put into the page as text (textContent, text nodes, live.js's DOM
// blocks); HTML comes from the server's own sanitized fragments
// (/s/{id}/entry/{turn}).
"use strict";

(function () {
  const body = document.body;
  const api = body.dataset.api || "/api/v1";
  const live = window.ParleyLive;

  function $(sel, root) { return (root || document).querySelector(sel); }
  function el(tag, cls, text) {
    const n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = String(text);
    return n;
  }
  function attrSel(name, value) { return "[" + name + '="' + CSS.escape(String(value)) + '"]'; }

  // withUser adds the page's user_id (when the server set one) to an API URL.
  function withUser(url, params) {
    const q = new URLSearchParams(params || {});
    if (body.dataset.user) q.set("user_id", body.dataset.user);
    const s = q.toString();
    return s ? url + (url.includes("?") ? "&" : "?") + s : url;
  }

  function setStatus(text) {
    const s = $("#status");
    if (s) s.textContent = text || "";
  }

  // call sends JSON to the API (same origin) and returns the decoded reply;
  // an error reply ({"error":{"code","message"}}) is thrown as an Error
  // with its code and HTTP status.
  async function call(method, path, payload) {
    const res = await fetch(withUser(api + path), {
      method: method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) {
      const err = new Error(data && data.error ? (data.error.message || data.error.code) : res.status + " " + res.statusText);
      err.code = data && data.error ? data.error.code : "";
      err.status = res.status;
      throw err;
    }
    return data;
  }

  // ---- sessions page -------------------------------------------------

  function sessionsPage() {
    const form = $("#create");
    if (!form) return;
    const modeSel = $("#mode");
    const seats = $("#seats");
    let agents = []; // [{name, label}], configured then custom

    // seatsFor shows one agent choice per role of the mode (mention: any
    // number of agents, as check boxes); "default" keeps the configured ones.
    function seatsFor() {
      seats.replaceChildren();
      const opt = modeSel.selectedOptions[0];
      const roles = opt && opt.dataset.roles ? opt.dataset.roles.split(",") : [];
      if (!agents.length) return;
      if (!roles.length) {
        const box = el("fieldset", "seat-list");
        box.append(el("legend", "", "Agents (@all asks them; none ticked: the configured ones)"));
        agents.forEach(function (a) {
          const l = el("label", "seat-check");
          const c = el("input");
          c.type = "checkbox"; c.value = a.name; c.name = "agent";
          l.append(c, " " + a.label);
          box.append(l);
        });
        seats.append(box);
        return;
      }
      roles.forEach(function (role, i) {
        const l = el("label", "seat");
        const s = el("select");
        s.name = "agent"; s.dataset.role = role;
        s.setAttribute("aria-label", role + " " + (i + 1));
        s.append(new Option("configured default", ""));
        agents.forEach(function (a) { s.append(new Option(a.label, a.name)); });
        l.append(role + " ", s);
        seats.append(l);
      });
    }

    call("GET", "/agents").then(function (out) {
      const seen = new Set();
      (out.configured || []).concat(out.agents || []).forEach(function (a) {
        if (seen.has(a.name)) return;
        seen.add(a.name);
        agents.push({ name: a.name, label: (a.display || a.name) + " · " + (a.provider || "") + "/" + (a.model || "") });
      });
      seatsFor();
    }).catch(function (e) { $("#create-error").textContent = "agents: " + e.message; });
    modeSel.addEventListener("change", seatsFor);

    // chosenAgents is the seats' agents, [] for the defaults; it throws
    // when only some seats are chosen.
    function chosenAgents() {
      const checks = [...seats.querySelectorAll("input[name=agent]:checked")].map(function (c) { return c.value; });
      if (checks.length) return checks;
      const sel = [...seats.querySelectorAll("select[name=agent]")];
      const picked = sel.map(function (s) { return s.value; });
      if (picked.every(function (v) { return v === ""; })) return [];
      const missing = sel.filter(function (s) { return s.value === ""; }).map(function (s) { return s.dataset.role; });
      // Seats past the mode's least are optional (talk's MC: two guests are enough).
      const least = +(modeSel.selectedOptions[0].dataset.seatsMin || sel.length);
      const filled = picked.indexOf("") < 0 ? picked.length : picked.indexOf("");
      if (filled >= least && picked.slice(filled).every(function (v) { return v === ""; })) return picked.slice(0, filled);
      if (missing.length) throw new Error("choose an agent for every seat (" + missing.join(", ") + "), or leave them all on default");
      return picked;
    }

    form.addEventListener("submit", async function (ev) {
      ev.preventDefault();
      const errBox = $("#create-error");
      errBox.textContent = "";
      try {
        const payload = { mode: modeSel.value, title: $("#title").value, user_id: body.dataset.user || "" };
        if ($("#checkpoint") && $("#checkpoint").value) payload.checkpoint = $("#checkpoint").value;
        const chosen = chosenAgents();
        if (chosen.length) payload.agents = chosen;
        const out = await call("POST", "/sessions", payload);
        location.assign("/s/" + encodeURIComponent(out.session.id));
      } catch (e) {
        errBox.textContent = e.message;
      }
    });
    // Create is rendered disabled: clicked before this script ran, the
    // form would submit itself as a GET and reload the page with its
    // fields in the address.
    $("button[type=submit]", form).disabled = false;
  }

  // ---- session page --------------------------------------------------

  function sessionPage() {
    const id = body.dataset.session;
    const mode = body.dataset.mode;
    const board = body.dataset.board; // the mode's outcome board: votes, ranking or none
    const rankingRound = +(body.dataset.rankingRound || 0);
    const transcript = $("#transcript");
    const panels = $("#panels");
    const streams = new Map(); // turn -> {item: LiveText, panel: LiveText|null}
    const finished = new Set(); // turns already swapped for server HTML
    const page = document.scrollingElement || document.documentElement;
    let busy = body.dataset.busy === "true";

    showBusy();

    function isMarkdown(entry) { return entry.kind === "reply" || entry.kind === "moderator"; }

    // A council member's ranking turn is not its panel's: the panel keeps
    // the answer, the ranking goes to the transcript and the table.
    function ownsPanel(entry) { return !(rankingRound && entry.mode === mode && entry.round === rankingRound); }

    function panelOf(agent) { return $(".panel" + attrSel("data-agent", agent)); }

    // Turns the server rendered: finished ones are final, streaming ones
    // go on with the deltas that follow the server's snapshot.
    transcript.querySelectorAll("li.entry").forEach(function (li) {
      const turn = Number(li.dataset.turn);
      decorate(li);
      if (li.dataset.status !== "streaming") { finished.add(turn); return; }
      const entry = { kind: li.dataset.kind, speaker: li.dataset.speaker };
      const box = $(".entry-body", li);
      const text = box.textContent;
      const p = panelOf(entry.speaker);
      const pbox = p && Number(p.dataset.turn) === turn ? $(".entry-body", p) : null;
      streams.set(turn, {
        item: new live.LiveText(box, text, isMarkdown(entry)),
        panel: pbox ? new live.LiveText(pbox, text, isMarkdown(entry)) : null,
      });
    });

    function showBusy() {
      body.classList.toggle("busy", busy);
      setStatus(busy ? "agents are answering…" : "");
    }

    // answering names the agents whose turns stream, for the busy message.
    function answering() {
      return [...document.querySelectorAll(".panel")].filter(function (p) {
        return $(".panel-status", p).textContent === "streaming";
      }).map(function (p) { return $(".panel-name", p).textContent; });
    }

    function panelFor(entry) {
      let p = panelOf(entry.speaker);
      if (!p) { // an agent outside the mode's panels, e.g. @claude in mention mode
        p = el("article", "panel agent-" + panels.children.length);
        p.dataset.agent = entry.speaker;
        const head = el("header", "panel-head");
        head.append(el("span", "panel-name", entry.display || entry.speaker), " ",
          el("span", "model", (entry.provider || "") + "/" + (entry.model || "")), " ",
          el("span", "panel-usage", ""), " ", el("span", "panel-status", ""));
        p.append(head, el("div", "panel-body"));
        panels.append(p);
      }
      return p;
    }

    // panelStatus shows a turn's state, or its vote once it has one.
    function panelStatus(p, entry) {
      const s = $(".panel-status", p);
      s.className = "panel-status";
      if (entry.vote && entry.status !== "streaming") {
        s.classList.add("vote", "vote-" + entry.vote);
        s.textContent = entry.vote;
      } else {
        s.textContent = entry.status;
      }
    }

    // foreign: the turn came through another door of the session (the
    // console, ask, mcp, …), not this server's API or page.
    function foreign(entry) { return !!entry.origin && entry.origin !== "serve"; }

    function headFor(entry) {
      const head = el("div", "entry-head");
      head.append(el("span", "turn", "#" + entry.turn), " ", el("span", "speaker", entry.display || entry.speaker));
      if (foreign(entry)) head.append(" ", el("span", "origin", "via " + entry.origin));
      if (entry.model) head.append(" ", el("span", "model", (entry.provider || "") + "/" + entry.model));
      if (entry.round) head.append(" ", el("span", "round", "round " + entry.round));
      if (entry.vote) head.append(" ", el("span", "vote vote-" + entry.vote, entry.vote));
      if (entry.status && entry.status !== "complete") head.append(" ", el("span", "entry-status", entry.status));
      return head;
    }

    // itemFor builds a transcript item from an event's entry, text only.
    function itemFor(entry) {
      const li = el("li", "entry kind-" + entry.kind + " status-" + entry.status);
      li.id = "turn-" + entry.turn;
      li.dataset.turn = entry.turn;
      li.dataset.speaker = entry.speaker;
      li.dataset.kind = entry.kind;
      li.dataset.status = entry.status;
      li.append(headFor(entry), el("div", "entry-body text" + (entry.status === "streaming" ? " streaming" : ""), entry.text || ""));
      if (entry.error) li.append(el("div", "entry-error", entry.error));
      return li;
    }

    // decorate gives a transcript item its "fork here" button.
    function decorate(li) {
      const head = $(".entry-head", li);
      if (!head || $(".fork-at", head)) return;
      const b = el("button", "fork-at", "fork here");
      b.type = "button";
      b.dataset.turn = li.dataset.turn;
      b.title = "a new session with turns 1 to " + li.dataset.turn;
      head.append(" ", b);
    }

    // place puts an item in turn order, following the page's end.
    function place(li) {
      decorate(li);
      live.follow([page], function () {
        const old = document.getElementById(li.id);
        if (old) { old.replaceWith(li); return; }
        const turn = Number(li.dataset.turn);
        for (const other of transcript.children) { // keep turn order
          if (Number(other.dataset.turn) > turn) { transcript.insertBefore(li, other); return; }
        }
        transcript.append(li);
      });
    }

    function turnStarted(entry) {
      if (finished.has(entry.turn)) return;
      const li = itemFor(entry);
      place(li);
      const md = isMarkdown(entry);
      let panelText = null;
      if (ownsPanel(entry)) {
        const p = panelFor(entry);
        const stream = el("div", "entry-body text streaming");
        $(".panel-body", p).replaceChildren(stream);
        p.dataset.turn = entry.turn;
        panelStatus(p, entry);
        $(".panel-usage", p).textContent = "";
        panelText = new live.LiveText(stream, entry.text || "", md);
      } else {
        const p = panelOf(entry.speaker);
        if (p) $(".panel-status", p).textContent = "ranking…";
      }
      streams.set(entry.turn, { item: new live.LiveText($(".entry-body", li), entry.text || "", md), panel: panelText });
    }

    function textDelta(ev) {
      const s = streams.get(ev.turn);
      if (!s) return;
      const p = s.panel ? $(".panel-body", panelOf(ev.agent)) : null;
      live.follow([page, p], function () {
        s.item.append(ev.text);
        if (s.panel) s.panel.append(ev.text);
      });
    }

    // turnFinished swaps the streamed text for the server's rendered,
    // sanitized HTML of the turn. The fragment is asked again a few times
    // while the server still reports the turn as streaming.
    async function turnFinished(entry) {
      if (finished.has(entry.turn)) return;
      const s = streams.get(entry.turn);
      streams.delete(entry.turn);
      const p = ownsPanel(entry) ? panelOf(entry.speaker) : null;
      const mine = p && Number(p.dataset.turn) === entry.turn;
      if (mine) panelStatus(p, entry);
      if (!ownsPanel(entry) && panelOf(entry.speaker)) $(".panel-status", panelOf(entry.speaker)).textContent = "ranked";
      for (let attempt = 0; attempt < 6; attempt++) {
        let frag = null;
        try { frag = await fetchEntry(entry.turn); } catch (e) { frag = null; }
        if (frag && frag.dataset.status !== "streaming") {
          finished.add(entry.turn);
          place(frag);
          if (mine && Number(p.dataset.turn) === entry.turn) {
            const pb = $(".panel-body", p);
            live.follow([page], function () {
              pb.replaceChildren();
              frag.querySelectorAll(":scope > .entry-body, :scope > .tool-calls, :scope > .entry-error")
                .forEach(function (n) { pb.append(n.cloneNode(true)); });
            });
          }
          return;
        }
        await new Promise(function (r) { setTimeout(r, 100 * (attempt + 1)); });
      }
      // No fragment: the streamed text stays, marked with the final status.
      if (s) { s.item.box.classList.remove("streaming"); if (s.panel) s.panel.box.classList.remove("streaming"); }
    }

    async function fetchEntry(turn) {
      const res = await fetch("/s/" + encodeURIComponent(id) + "/entry/" + turn, { credentials: "same-origin" });
      if (!res.ok) return null;
      const tpl = document.createElement("template");
      tpl.innerHTML = await res.text(); // sanitized on the server; the CSP backs it up
      return tpl.content.querySelector("li.entry");
    }

    function entryAdded(entry) {
      place(itemFor(entry));
      if (entry.kind === "user" && board === "votes") magi.reset(entry);
      // A tool call's line and its source's link are the server's render.
      if (entry.kind === "tool_call") fetchEntry(entry.turn).then(function (f) { if (f) place(f); }).catch(function () {});
    }

    // safeHref is raw when it is an absolute http or https URL, else "":
    // a source comes from outside (never javascript:, data: or relative).
    function safeHref(raw) {
      if (typeof raw !== "string" || raw.length > 4096 || /[\u0000-\u001f\u007f]/.test(raw)) return "";
      try {
        const u = new URL(raw);
        return (u.protocol === "http:" || u.protocol === "https:") && u.host ? u.href : "";
      } catch (e) { return ""; }
    }

    // evidenceAdded lists a new record of the ledger, as the server's
    // render does: its words as text, its source a link only when safe.
    function evidenceAdded(ev) {
      const r = ev.record;
      if (!r || !/^E[0-9]{1,6}$/.test(r.id) || document.getElementById("evidence-" + r.id)) return;
      const li = el("li");
      li.id = "evidence-" + r.id;
      li.dataset.id = r.id;
      const label = r.title && String(r.title).trim() ? r.title : r.source;
      const href = safeHref(r.source);
      let src = el("span", "source", label);
      if (href) {
        src = el("a", "source", label);
        src.href = href;
        src.rel = "noopener noreferrer";
        src.target = "_blank";
      }
      li.append(el("span", "evidence-id", r.id), " ", src, " ", el("span", "evidence-meta", r.tool + " by " + r.agent));
      $("#evidence-list").append(li);
      $("#evidence").hidden = false;
    }

    const magi = window.ParleyBoards.magi(setStatus);
    const bar = window.ParleyCheckpoint($("#checkpoint"), function (answer) {
      return call("POST", "/sessions/" + encodeURIComponent(id) + "/checkpoint", answer);
    });
    const council = window.ParleyBoards.council(fetchEntry);

    // ---- the stream ----

    const handlers = {
      session_started: function () {},
      session_updated: function (ev) {
        if (ev.session.mode !== mode) { location.reload(); return; }
        if (ev.session.title) $("#session-title").textContent = ev.session.title;
      },
      entry_added: function (ev) { entryAdded(ev.entry); },
      evidence_added: evidenceAdded,
      // Another door's turn ends with no exchange_finished here: it does not make the page busy.
      turn_started: function (ev) { if (!foreign(ev.entry)) { busy = true; showBusy(); } turnStarted(ev.entry); },
      text_delta: textDelta,
      // A vote shows in its member's panel head as soon as its field is in.
      field_completed: function (ev) {
        const p = panelOf(ev.agent);
        if (!p || Number(p.dataset.turn) !== ev.turn || (ev.field !== "vote" && ev.field !== "answer")) return;
        const s = $(".panel-status", p);
        s.className = "panel-status vote vote-" + ev.value;
        s.textContent = ev.value;
      },
      turn_finished: function (ev) { turnFinished(ev.entry); },
      retrying: function (ev) { setStatus(ev.agent + ": retrying (attempt " + ev.attempt + "): " + ev.error); },
      usage: function (ev) {
        const p = panelOf(ev.agent);
        if (p && Number(p.dataset.turn) === ev.turn && ev.usage) {
          $(".panel-usage", p).textContent = ev.usage.input_tokens + " in · " + ev.usage.output_tokens + " out";
        }
      },
      vote: magi.vote,
      verdict: magi.verdict,
      tool: function (ev) { setStatus(ev.agent + " " + (ev.done ? "ran " : "runs ") + ev.call.tool); },
      error: function (ev) { setStatus((ev.agent ? ev.agent + ": " : "") + ev.error); },
      spend: function (ev) {
        // The same words as the server's render (web.go spendText).
        const spent = ev.unknown ? "$?" : "$" + Number(ev.spent_usd).toFixed(4);
        let cap = String(ev.cap_usd || 0);
        const dot = cap.indexOf(".");
        cap = dot < 0 ? cap + ".00" : cap + "0".repeat(Math.max(0, 2 - (cap.length - dot - 1)));
        $("#spend").textContent = ev.cap_usd > 0 ? "spent " + spent + " of a $" + cap + " cap" : "spent " + spent;
      },
      cap_reached: function (ev) { setStatus(ev.message); },
      exchange_finished: function (ev) { busy = false; showBusy(); if (ev.error) setStatus(ev.error); },
      magi_round_finished: magi.roundFinished,
      magi_decided: magi.decided,
      council_answers_collected: council.answersCollected,
      council_ranking_cast: council.rankingCast,
      council_ranked: council.ranked,
      council_decided: council.decided,
      alternate_step_finished: function (ev) { if (ev.next_display) setStatus("next: " + ev.next_display); },
      talk_round_summarised: function (ev) { setStatus("talk round " + ev.round + " summarised"); },
      talk_finished: function () { setStatus("the talk is over"); },
      agent_answered: function (ev) { if (ev.error) setStatus(ev.error); },
      checkpoint: function (ev) { bar.show(ev); setStatus(ev.sentence); },
      checkpoint_answered: function (ev) { bar.hide(); setStatus(ev.sentence); },
    };

    // The stream starts after the last event the server's render included;
    // EventSource resumes with Last-Event-ID by itself after a drop.
    const after = body.dataset.after ? { after: body.dataset.after } : {};
    const source = new EventSource(withUser(api + "/sessions/" + encodeURIComponent(id) + "/events", after));
    // The server lost events this page needs (it fell too far behind): the
    // page starts over from the server's render.
    source.addEventListener("reset", function () { source.close(); location.reload(); });
    Object.keys(handlers).forEach(function (type) {
      source.addEventListener(type, function (msg) {
        let ev;
        try { ev = JSON.parse(msg.data); } catch (e) { return; }
        if (!ev || ev.type !== type) return;
        handlers[type](ev);
      });
    });
    source.addEventListener("open", function () { body.classList.add("live"); });
    source.addEventListener("error", function () { body.classList.remove("live"); });

    sessionForms(id, mode, answering);
  }

  // sessionForms wires the input, the controls, the mode switch, fork and
  // delete. A refused request leaves what was typed where it was and says
  // why under the input.
  function sessionForms(id, mode, answering) {
    const path = "/sessions/" + encodeURIComponent(id);
    const errBox = $("#say-error");
    const input = $("#input");

    function refused(e, what) {
      let msg = e.message;
      if (e.status === 409 && e.code === "busy") {
        const who = answering();
        msg = "Not sent: " + (who.length ? who.join(", ") + (who.length > 1 ? " are" : " is") : "the agents are") +
          " still answering. " + what + " when the exchange is over; your text stays here.";
      }
      errBox.textContent = msg;
      input.setAttribute("aria-invalid", "true");
    }
    function clearError() { errBox.textContent = ""; input.removeAttribute("aria-invalid"); }

    // Switching the mode keeps the history; the session_updated event that
    // follows reloads the page into the new mode's panels and controls.
    $("#mode-switch").addEventListener("change", async function (ev) {
      clearError();
      try {
        await call("POST", path + "/mode", { mode: ev.target.value });
      } catch (e) {
        ev.target.value = mode;
        refused(e, "Switch the mode");
      }
    });

    const form = $("#say");
    form.addEventListener("submit", async function (ev) {
      ev.preventDefault();
      // An empty line is sent too: the mode decides what it means (in
      // alternate mode, the next step).
      const sent = input.value;
      clearError();
      try {
        await call("POST", path + "/messages", { text: sent.trim() });
        if (input.value === sent) input.value = ""; // unless typed on meanwhile
      } catch (e) {
        refused(e, "Send it again");
      }
    });
    // Send is rendered disabled: before this script ran, the form would
    // submit itself as a GET, the message lost and put in the address.
    $("#send").disabled = false;
    input.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) { ev.preventDefault(); form.requestSubmit(); }
    });
    form.querySelectorAll("button.control").forEach(function (b) {
      b.addEventListener("click", async function () {
        clearError();
        const payload = { kind: b.dataset.kind };
        const n = $("#control-n");
        if ((payload.kind === "rounds" || payload.kind === "steps") && n) payload.n = Number(n.value);
        try {
          await call("POST", path + "/control", payload);
          setStatus(payload.kind + " sent");
        } catch (e) {
          refused(e, "Try " + payload.kind + " again");
        }
      });
    });

    const actionErr = $("#action-error");
    async function fork(at) {
      actionErr.textContent = "";
      try {
        const out = await call("POST", path + "/fork", at ? { at: at } : {});
        location.assign("/s/" + encodeURIComponent(out.session.id));
      } catch (e) {
        actionErr.textContent = e.status === 409 ? "Not forked: the agents are still answering; fork when the exchange is over." : e.message;
      }
    }
    $("#fork").addEventListener("click", function () { fork(0); });
    $("#transcript").addEventListener("click", function (ev) {
      const b = ev.target.closest(".fork-at");
      if (b) fork(Number(b.dataset.turn));
    });
    // Delete asks once more on the button itself: no dialog to miss.
    const del = $("#delete");
    del.addEventListener("click", async function () {
      if (del.dataset.armed !== "true") {
        del.dataset.armed = "true";
        del.textContent = "Delete this session for good?";
        return;
      }
      try {
        await call("DELETE", path);
        location.assign("/");
      } catch (e) {
        actionErr.textContent = e.message;
      }
    });
    del.addEventListener("blur", function () { del.dataset.armed = ""; del.textContent = "Delete…"; });
  }

  if (body.dataset.page === "sessions") sessionsPage();
  if (body.dataset.page === "session") sessionPage();
})();
