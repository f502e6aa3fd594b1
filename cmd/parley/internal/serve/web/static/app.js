// Parley's web view. The pages are rendered on the server; this script only
// follows a session live through the API's event stream. Model text is only
// ever put into the page as text (textContent, text nodes); HTML comes from
// the server's own sanitized fragments (/s/{id}/entry/{turn}).
"use strict";

(function () {
  const body = document.body;
  const api = body.dataset.api || "/api/v1";

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

  // call sends JSON to the API and returns the decoded reply; an error
  // reply ({"error":{"code","message"}}) is thrown as an Error.
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
      const msg = data && data.error ? (data.error.message || data.error.code) : res.status + " " + res.statusText;
      throw new Error(msg);
    }
    return data;
  }

  // ---- sessions page -------------------------------------------------

  function sessionsPage() {
    const form = $("#create");
    if (!form) return;
    form.addEventListener("submit", async function (ev) {
      ev.preventDefault();
      const errBox = $("#create-error");
      errBox.textContent = "";
      try {
        const out = await call("POST", "/sessions", {
          mode: $("#mode").value, title: $("#title").value, user_id: body.dataset.user || "",
        });
        location.assign("/s/" + encodeURIComponent(out.session.id));
      } catch (e) {
        errBox.textContent = e.message;
      }
    });
  }

  // ---- session page --------------------------------------------------

  function sessionPage() {
    const id = body.dataset.session;
    const transcript = $("#transcript");
    const panels = $("#panels");
    const streams = new Map(); // turn -> {item: Text, panel: Text|null}
    const finished = new Set(); // turns already swapped for server HTML
    let busy = body.dataset.busy === "true";

    showBusy();

    // textNodeOf returns the text node that streamed text is appended to.
    function textNodeOf(box) {
      if (!box) return null;
      if (!box.firstChild || box.firstChild.nodeType !== Node.TEXT_NODE) box.prepend(document.createTextNode(""));
      return box.firstChild;
    }

    // Turns the server rendered: finished ones are final, streaming ones
    // go on with the deltas that follow.
    transcript.querySelectorAll("li.entry").forEach(function (li) {
      const turn = Number(li.dataset.turn);
      if (li.dataset.status !== "streaming") { finished.add(turn); return; }
      const p = panels.querySelector(".panel" + attrSel("data-agent", li.dataset.speaker));
      const panelText = p && Number(p.dataset.turn) === turn ? textNodeOf($(".entry-body", p)) : null;
      streams.set(turn, { item: textNodeOf($(".entry-body", li)), panel: panelText });
    });

    function showBusy() {
      body.classList.toggle("busy", busy);
      setStatus(busy ? "agents are answering…" : "");
    }

    function panelFor(entry) {
      let p = panels.querySelector(".panel" + attrSel("data-agent", entry.speaker));
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

    function headFor(entry) {
      const head = el("div", "entry-head");
      head.append(el("span", "turn", "#" + entry.turn), " ", el("span", "speaker", entry.display || entry.speaker));
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

    function place(li) {
      const old = document.getElementById(li.id);
      if (old) { old.replaceWith(li); return; }
      const turn = Number(li.dataset.turn);
      for (const other of transcript.children) { // keep turn order
        if (Number(other.dataset.turn) > turn) { transcript.insertBefore(li, other); return; }
      }
      transcript.append(li);
    }

    function turnStarted(entry) {
      if (finished.has(entry.turn)) return;
      const li = itemFor(entry);
      place(li);
      const p = panelFor(entry);
      const pb = $(".panel-body", p);
      pb.replaceChildren();
      const stream = el("div", "entry-body text streaming");
      const text = document.createTextNode(entry.text || "");
      stream.append(text);
      pb.append(stream);
      p.dataset.turn = entry.turn;
      $(".panel-status", p).textContent = "streaming";
      $(".panel-usage", p).textContent = "";
      streams.set(entry.turn, { item: textNodeOf($(".entry-body", li)), panel: text });
    }

    function textDelta(ev) {
      const s = streams.get(ev.turn);
      if (!s) return;
      s.item.appendData(ev.text);
      if (s.panel) s.panel.appendData(ev.text);
    }

    // turnFinished swaps the streamed text for the server's rendered,
    // sanitized HTML of the turn. The fragment is asked again a few times
    // while the server still reports the turn as streaming.
    async function turnFinished(entry) {
      if (finished.has(entry.turn)) return;
      streams.delete(entry.turn);
      place(itemFor(entry)); // final text and status at once; HTML follows
      const p = panels.querySelector(".panel" + attrSel("data-agent", entry.speaker));
      if (p && Number(p.dataset.turn) === entry.turn) {
        $(".panel-status", p).textContent = entry.status;
        $(".panel-body", p).replaceChildren(el("div", "entry-body text", entry.text || ""));
        if (entry.error) $(".panel-body", p).append(el("div", "entry-error", entry.error));
      }
      for (let attempt = 0; attempt < 6; attempt++) {
        let frag = null;
        try { frag = await fetchEntry(entry.turn); } catch (e) { return; }
        if (frag && frag.dataset.status !== "streaming") {
          finished.add(entry.turn);
          place(frag);
          if (p && Number(p.dataset.turn) === entry.turn) {
            const pb = $(".panel-body", p);
            pb.replaceChildren();
            frag.querySelectorAll(":scope > .entry-body, :scope > .tool-calls, :scope > .entry-error")
              .forEach(function (n) { pb.append(n.cloneNode(true)); });
          }
          return;
        }
        await new Promise(function (r) { setTimeout(r, 100 * (attempt + 1)); });
      }
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
      if (entry.kind === "user" && body.dataset.mode === "magi") resetBoard(entry);
    }

    // ---- MAGI vote board ----

    function board() { return $("#magi .board"); }

    function resetBoard(entry) {
      const b = board();
      if (!b) return;
      b.dataset.questionTurn = entry.turn;
      $(".question", b).textContent = entry.text;
      b.querySelectorAll("td.cell").forEach(function (td) { td.className = "cell"; td.textContent = "·"; td.title = ""; });
      const v = $(".verdict", b);
      v.className = "verdict"; v.dataset.verdict = ""; v.textContent = "";
      $(".flips", b).replaceChildren();
    }

    function cellFor(agent, round, display) {
      const b = board();
      if (!b) return null;
      let row = b.querySelector("tbody tr" + attrSel("data-agent", agent));
      if (!row) {
        row = el("tr");
        row.dataset.agent = agent;
        row.append(el("th", "", display || agent));
        $("tbody", b).append(row);
      }
      const headRow = $("thead tr", b);
      while (headRow.children.length - 1 < round) {
        const th = el("th", "", "round " + headRow.children.length);
        th.dataset.round = headRow.children.length;
        headRow.append(th);
      }
      b.querySelectorAll("tbody tr").forEach(function (tr) {
        while (tr.children.length - 1 < headRow.children.length - 1) {
          const td = el("td", "cell", "·");
          td.dataset.round = tr.children.length;
          tr.append(td);
        }
      });
      return row.querySelector("td" + attrSel("data-round", round));
    }

    function setCell(agent, round, vote, summary, changed, display) {
      const td = cellFor(agent, round, display);
      if (!td) return;
      td.className = "cell" + (vote ? " vote-" + vote : "") + (changed ? " changed" : "");
      td.textContent = (vote || "·") + (changed ? " ↻" : "");
      td.title = summary || "";
    }

    function vote(ev) { setCell(ev.agent, ev.round, ev.valid ? ev.vote : "invalid", ev.summary || ev.error, false); }

    function roundFinished(ev) {
      const changed = new Set(ev.changed || []);
      (ev.votes || []).forEach(function (v) {
        setCell(v.agent, v.round, v.valid ? v.vote : "invalid", v.summary || v.error, changed.has(v.agent), v.display);
      });
      setStatus("MAGI round " + ev.round + " of " + ev.of + " finished");
    }

    function tallyLine(tally) {
      return Object.keys(tally || {}).sort().map(function (k) { return tally[k] + " " + k; }).join(", ");
    }

    function verdict(ev) {
      const v = $(".verdict", board() || document);
      if (!v) return;
      v.className = "verdict decided verdict-" + ev.verdict.replace(/\s+/g, "-");
      v.dataset.verdict = ev.verdict;
      v.textContent = ev.verdict + " after round " + ev.round + ": " + tallyLine(ev.tally);
    }

    function decided(ev) {
      const b = board();
      if (!b) return;
      if (ev.cancelled) { setStatus("the council was cancelled"); return; }
      const list = $(".flips", b);
      list.replaceChildren();
      (ev.flips || []).forEach(function (f) {
        const th = b.querySelector("tbody tr" + attrSel("data-agent", f.agent) + " th");
        const who = th ? th.textContent : f.agent;
        list.append(el("li", f.conformity ? "conformity" : "",
          who + ": " + f.from + " → " + f.to + " (round " + f.from_round + " → " + f.to_round + ")" +
          (f.conformity ? " CONFORMITY" : " argued, " + f.new_words + " new words")));
      });
    }

    // ---- the stream ----

    const handlers = {
      session_started: function () {},
      session_updated: function (ev) {
        if (ev.session.mode !== body.dataset.mode) { location.reload(); return; }
        if (ev.session.title) $("#session-title").textContent = ev.session.title;
      },
      entry_added: function (ev) { entryAdded(ev.entry); },
      turn_started: function (ev) { busy = true; showBusy(); turnStarted(ev.entry); },
      text_delta: textDelta,
      turn_finished: function (ev) { turnFinished(ev.entry); },
      retrying: function (ev) { setStatus(ev.agent + ": retrying (attempt " + ev.attempt + "): " + ev.error); },
      usage: function (ev) {
        const p = panels.querySelector(".panel" + attrSel("data-agent", ev.agent));
        if (p && Number(p.dataset.turn) === ev.turn && ev.usage) {
          $(".panel-usage", p).textContent = ev.usage.input_tokens + " in · " + ev.usage.output_tokens + " out";
        }
      },
      vote: vote,
      verdict: verdict,
      tool: function (ev) { setStatus(ev.agent + " " + (ev.done ? "ran " : "runs ") + ev.call.tool); },
      error: function (ev) { setStatus((ev.agent ? ev.agent + ": " : "") + ev.error); },
      exchange_finished: function (ev) { busy = false; showBusy(); if (ev.error) setStatus(ev.error); },
      magi_round_finished: roundFinished,
      magi_decided: decided,
      alternate_step_finished: function (ev) { if (ev.next_display) setStatus("next: " + ev.next_display); },
      talk_round_summarised: function (ev) { setStatus("talk round " + ev.round + " summarised"); },
      talk_finished: function () { setStatus("the talk is over"); },
      agent_answered: function (ev) { if (ev.error) setStatus(ev.error); },
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

    // ---- input and controls ----

    // Switching the mode keeps the history; the session_updated event that
    // follows reloads the page into the new mode's panels and controls.
    $("#mode-switch").addEventListener("change", async function (ev) {
      const errBox = $("#say-error");
      errBox.textContent = "";
      try {
        await call("POST", "/sessions/" + encodeURIComponent(id) + "/mode", { mode: ev.target.value });
      } catch (e) {
        ev.target.value = body.dataset.mode;
        errBox.textContent = e.message;
      }
    });

    const form = $("#say");
    form.addEventListener("submit", async function (ev) {
      ev.preventDefault();
      const input = $("#input");
      // An empty line is sent too: the mode decides what it means (in
      // alternate mode, the next step).
      const text = input.value.trim();
      const errBox = $("#say-error");
      errBox.textContent = "";
      try {
        await call("POST", "/sessions/" + encodeURIComponent(id) + "/messages", { text: text });
        input.value = "";
      } catch (e) {
        errBox.textContent = e.message;
      }
    });
    $("#input").addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); form.requestSubmit(); }
    });
    form.querySelectorAll("button.control").forEach(function (b) {
      b.addEventListener("click", async function () {
        const errBox = $("#say-error");
        errBox.textContent = "";
        const payload = { kind: b.dataset.kind };
        const n = $("#control-n");
        if ((payload.kind === "rounds" || payload.kind === "steps") && n) payload.n = Number(n.value);
        try {
          await call("POST", "/sessions/" + encodeURIComponent(id) + "/control", payload);
          setStatus(payload.kind + " sent");
        } catch (e) {
          errBox.textContent = e.message;
        }
      });
    });
  }

  if (body.dataset.page === "sessions") sessionsPage();
  if (body.dataset.page === "session") sessionPage();
})();
