// The checkpoint bar: when the session's run waits for its host, the
// choices the checkpoint offers as buttons, and a text box for a note or
// a denial's reason. What the run says (the checkpoint's sentence, member
// names) is only ever put in the page as text.
"use strict";

window.ParleyCheckpoint = function (bar, send) {
  const what = bar.querySelector(".checkpoint-what");
  const choices = bar.querySelector(".checkpoint-choices");
  const text = bar.querySelector("#checkpoint-text");
  const err = bar.querySelector(".checkpoint-error");

  function button(label, answer, needsText) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "checkpoint-choice";
    b.dataset.action = answer.action;
    if (answer.member) b.dataset.member = answer.member;
    b.textContent = label;
    b.addEventListener("click", async function () {
      const a = Object.assign({}, answer, b.chosen ? b.chosen() : {}); // the swapper's lists, as they are now
      if (needsText) {
        a.text = text.value.trim();
        if (!a.text) { err.textContent = "Write the " + (a.action === "note" ? "note" : "reason") + " in the box first."; text.focus(); return; }
      }
      err.textContent = "";
      const asked = shown;
      try {
        await send(a);
        text.value = "";
        if (shown === asked) hide(); // unless the next checkpoint came meanwhile
      } catch (e) {
        err.textContent = e.message;
      }
    });
    return b;
  }

  // swapper: the seat and the agent taking it, chosen from two lists (a
  // button per pair would be members × agents), and one Swap button.
  function swapper(point) {
    const box = document.createElement("span");
    box.className = "checkpoint-swap";
    function list(label, names) {
      const s = document.createElement("select");
      s.setAttribute("aria-label", label);
      names.forEach(function (n) { const o = document.createElement("option"); o.value = n; o.textContent = n; s.appendChild(o); });
      box.appendChild(s);
      return s;
    }
    const kept = (point.kept || []).filter(function (k) { return !k.swappable; }).map(function (k) { return k.name; });
    const seat = list("the seat", (point.members || []).filter(function (m) { return kept.indexOf(m) < 0; }));
    const agent = list("the agent taking it", point.agents || []);
    const b = button("Swap", { action: "swap" });
    b.chosen = function () { return { member: seat.value, with: agent.value }; };
    box.appendChild(b);
    return box;
  }

  let shown = 0; // checkpoints shown so far

  function show(point) {
    shown++;
    while (choices.firstChild) choices.removeChild(choices.firstChild);
    err.textContent = "";
    what.textContent = point.sentence || "";
    (point.choices || []).forEach(function (c) {
      switch (c) {
        case "continue": choices.appendChild(button("Continue", { action: "continue" })); break;
        case "approve": choices.appendChild(button("Approve", { action: "approve" })); break;
        case "stop": choices.appendChild(button("Stop", { action: "stop" })); break;
        case "note": choices.appendChild(button("Add the note", { action: "note" }, true)); break;
        case "deny": choices.appendChild(button("Deny", { action: "deny" }, true)); break;
        case "drop":
          (point.members || []).forEach(function (m) { choices.appendChild(button("Drop " + m, { action: "drop", member: m })); });
          break;
        case "swap": choices.appendChild(swapper(point)); break;
      }
    });
    text.placeholder = (point.choices || []).indexOf("deny") >= 0 ? "why the call is denied" : "a note every member reads next round";
    bar.hidden = false;
  }
  function hide() { bar.hidden = true; }

  if (bar.dataset.point) {
    try { show(JSON.parse(bar.dataset.point)); } catch (e) { /* a page rendered without one */ }
  }
  return { show: show, hide: hide };
};
