// Parley's live boards: the MAGI vote board and the council's ranking
// table and answer, built from the session's events into the same markup
// the server renders after a reload (templates: "board", "ranking",
// "fallback-note"). Text only: textContent and text nodes.
"use strict";

(function () {
  function $(sel, root) { return (root || document).querySelector(sel); }
  function el(tag, cls, text) {
    const n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = String(text);
    return n;
  }
  function attrSel(name, value) { return "[" + name + '="' + CSS.escape(String(value)) + '"]'; }
  // newWords words a flip's count as the server does (verdict.NewWordsPhrase).
  function newWords(n) { return n === 1 ? "1 new word" : n + " new words"; }

  function magi(setStatus) {
    function board() { return $("#magi .board"); }

    function reset(entry) {
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

    return {
      reset: reset,
      vote: function (ev) { setCell(ev.agent, ev.round, ev.valid ? ev.vote : "invalid", ev.summary || ev.error, false); },
      roundFinished: function (ev) {
        const changed = new Set(ev.changed || []);
        (ev.votes || []).forEach(function (v) {
          setCell(v.agent, v.round, v.valid ? v.vote : "invalid", v.summary || v.error, changed.has(v.agent), v.display);
        });
        setStatus("MAGI round " + ev.round + " of " + ev.of + " finished");
      },
      verdict: function (ev) {
        const v = $(".verdict", board() || document);
        if (!v) return;
        v.className = "verdict decided verdict-" + ev.verdict.replace(/\s+/g, "-");
        v.dataset.verdict = ev.verdict;
        v.textContent = ev.sentence; // the outcome as written once, by the server (debate.VerdictSentence)
      },
      decided: function (ev) {
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
            (f.conformity ? " CONFORMITY" : " argued, " + newWords(f.new_words))));
        });
      },
    };
  }

  // cell is the place ranking r gave member's answer (debate.CouncilRanking.Cell).
  function cell(r, member) {
    if (member === r.ranker) return "—";
    if (!r.valid) return "✗";
    const i = (r.order || []).indexOf(member);
    return i < 0 ? "·" : String(i + 1);
  }

  function council(fetchEntry) {
    const section = function () { return $("#ranking"); };
    let names = {}; // member -> display, from the answers

    function orderLine(r) {
      const who = r.display || r.ranker;
      if (!r.valid) return el("li", "invalid", who + "'s ranking is invalid: " + (r.error || ""));
      return el("li", "", who + " ranked: " + (r.order || []).map(function (m) { return names[m] || m; }).join(" › "));
    }

    function table(rankings, aggregate) {
      const s = section();
      if (!s) return;
      const head = el("tr");
      head.append(el("th", "", "answer"));
      rankings.forEach(function (r) { head.append(el("th", "ranker", r.display || r.ranker)); });
      head.append(el("th", "", "mean rank"), el("th", "", "Borda"));
      $("thead", s).replaceChildren(head);
      const rows = aggregate.map(function (a, i) {
        const tr = el("tr", i === 0 ? "top-ranked" : "");
        tr.dataset.member = a.member;
        tr.append(el("th", "", a.display || a.member));
        rankings.forEach(function (r) { tr.append(el("td", "", cell(r, a.member))); });
        tr.append(el("td", "mean", a.rankings > 0 ? a.mean_rank.toFixed(2) : "—"), el("td", "borda", a.borda));
        return tr;
      });
      $("tbody", s).replaceChildren(...rows);
      $(".orders", s).replaceChildren(...rankings.map(orderLine));
      s.hidden = rows.length === 0;
    }

    return {
      answersCollected: function (ev) {
        names = {};
        (ev.answers || []).forEach(function (a) { names[a.member] = a.display || a.member; });
        table([], []);
        $(".orders", section()).replaceChildren();
        const fb = $("#fallback");
        if (fb) fb.hidden = true;
      },
      rankingCast: function (ev) {
        const s = section();
        if (s) $(".orders", s).append(orderLine(ev));
      },
      ranked: function (ev) { table(ev.rankings || [], ev.aggregate || []); },
      decided: async function (ev) {
        (ev.answers || []).forEach(function (a) { names[a.member] = a.display || a.member; });
        table(ev.rankings || [], ev.aggregate || []);
        const ch = ev.chairman || {};
        const fb = $("#fallback");
        if (!fb || ch.status !== "failed" || !ch.fallback) return;
        const by = (ev.answers || []).find(function (a) { return a.member === ch.fallback; });
        if (!by) return;
        $(".fallback-note", fb).textContent = "The chairman failed" + (ch.error ? ": " + ch.error : "") +
          ". Shown instead, not the chairman's answer: the top-ranked answer, by " + (by.display || by.member) + ".";
        const box = $(".fallback-body", fb);
        box.replaceChildren(el("div", "entry-body text", by.text));
        fb.hidden = false;
        const frag = await fetchEntry(by.turn).catch(function () { return null; });
        const rendered = frag && frag.querySelector(":scope > .entry-body");
        if (rendered) box.replaceChildren(rendered.cloneNode(true));
      },
    };
  }

  window.ParleyBoards = { magi: magi, council: council };
})();
