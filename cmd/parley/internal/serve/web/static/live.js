// Parley's live text: a streaming answer shown block by block as its
// Markdown blocks complete, the open block as plain text. It builds DOM
// nodes only (createElement, text nodes): no model text is ever parsed as
// HTML, and a link keeps its href only when it is http(s). The server's
// goldmark + bluemonday render stays the truth for a finished turn (app.js
// swaps it in); this only keeps the text readable while it streams.
"use strict";

(function () {
  function el(tag, cls, text) {
    const n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = String(text);
    return n;
  }

  // safeHref returns url when it is an absolute http(s) URL, else "".
  function safeHref(url) {
    try {
      const u = new URL(url);
      return u.protocol === "http:" || u.protocol === "https:" ? u.href : "";
    } catch (e) { return ""; }
  }

  const inlineRE = /(`+)([^`][\s\S]*?)\1(?!`)|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__|~~(?=\S)([\s\S]*?\S)~~|\*(?=[^\s*])([\s\S]*?[^\s*])\*|(?<![\w])_(?=[^\s_])([\s\S]*?[^\s_])_(?![\w])|\[([^\]\n]+)\]\(([^()\s]+)\)|\\([!-/:-@[-`{-~])/g;

  // inline appends s to parent with code, strong, em, del and links.
  function inline(parent, s) {
    let last = 0;
    const re = new RegExp(inlineRE.source, "g");
    let m;
    while ((m = re.exec(s)) !== null) {
      if (m.index > last) parent.append(s.slice(last, m.index));
      last = re.lastIndex;
      if (m[1] !== undefined) {
        parent.append(el("code", "", m[2].replace(/^ (.*) $/s, "$1")));
      } else if (m[3] !== undefined || m[4] !== undefined) {
        const b = el("strong"); inline(b, m[3] !== undefined ? m[3] : m[4]); parent.append(b);
      } else if (m[5] !== undefined) {
        const d = el("del"); inline(d, m[5]); parent.append(d);
      } else if (m[6] !== undefined || m[7] !== undefined) {
        const i = el("em"); inline(i, m[6] !== undefined ? m[6] : m[7]); parent.append(i);
      } else if (m[8] !== undefined) {
        const href = safeHref(m[9]);
        const a = el(href ? "a" : "span");
        if (href) { a.href = href; a.rel = "nofollow noreferrer"; a.target = "_blank"; }
        inline(a, m[8]);
        parent.append(a);
      } else {
        parent.append(m[10]);
      }
    }
    if (last < s.length) parent.append(s.slice(last));
  }

  const listItemRE = /^\s{0,3}([-*+]|\d{1,9}[.)])\s+/;
  const fenceRE = /^\s{0,3}(```+|~~~+)\s*([\w+-]*)/;

  // renderBlock turns one complete Markdown block into a DOM node.
  function renderBlock(block) {
    const lines = block.replace(/\n+$/, "").split("\n");
    const fence = fenceRE.exec(lines[0]);
    if (fence) {
      const pre = el("pre");
      const body = lines.slice(1);
      if (body.length && body[body.length - 1].trim().startsWith(fence[1].slice(0, 3))) body.pop();
      const code = el("code", fence[2] ? "language-" + fence[2] : "", body.join("\n") + "\n");
      pre.append(code);
      return pre;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(lines[0]);
    if (heading && lines.length === 1) {
      const h = el("h" + heading[1].length);
      inline(h, heading[2]);
      return h;
    }
    if (lines.length === 1 && /^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(lines[0])) return el("hr");
    if (lines.every(function (l) { return /^\s{0,3}>/.test(l); })) {
      const q = el("blockquote");
      const p = el("p");
      inline(p, lines.map(function (l) { return l.replace(/^\s{0,3}>\s?/, ""); }).join("\n"));
      q.append(p);
      return q;
    }
    if (listItemRE.test(lines[0])) return renderList(lines);
    if (lines.length >= 2 && lines[0].includes("|") && /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/.test(lines[1])) return renderTable(lines);
    const p = el("p");
    inline(p, lines.map(function (l) { return l.trim(); }).join("\n"));
    return p;
  }

  function renderList(lines) {
    const ordered = /^\s{0,3}\d/.test(lines[0]);
    const list = el(ordered ? "ol" : "ul");
    let item = null;
    let text = [];
    function close() { if (item) { inline(item, text.join("\n")); list.append(item); } }
    lines.forEach(function (l) {
      const m = listItemRE.exec(l);
      if (m) { close(); item = el("li"); text = [l.slice(m[0].length)]; } else { text.push(l.trim()); }
    });
    close();
    return list;
  }

  function cells(line) {
    return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map(function (c) { return c.trim(); });
  }

  function renderTable(lines) {
    const table = el("table");
    const head = el("thead");
    const hr = el("tr");
    cells(lines[0]).forEach(function (c) { const th = el("th"); inline(th, c); hr.append(th); });
    head.append(hr);
    const body = el("tbody");
    lines.slice(2).forEach(function (l) {
      const tr = el("tr");
      cells(l).forEach(function (c) { const td = el("td"); inline(td, c); tr.append(td); });
      body.append(tr);
    });
    table.append(head);
    if (body.children.length) table.append(body);
    return table;
  }

  // splitBlocks cuts text into complete blocks (ended by a blank line, or a
  // fenced block by its closing fence) and the open rest.
  function splitBlocks(text) {
    const blocks = [];
    let start = 0;
    let pos = 0;
    let fence = "";
    while (pos < text.length) {
      const nl = text.indexOf("\n", pos);
      if (nl < 0) break; // the last line is still being written
      const line = text.slice(pos, nl);
      if (fence) {
        if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, "") === "") {
          blocks.push(text.slice(start, nl + 1));
          start = nl + 1;
          fence = "";
        }
      } else if (line.trim() === "") {
        if (text.slice(start, pos).trim() !== "") blocks.push(text.slice(start, pos));
        start = nl + 1;
      } else {
        const f = fenceRE.exec(line);
        if (f && text.slice(start, pos).trim() === "") fence = f[1];
      }
      pos = nl + 1;
    }
    return { blocks: blocks, rest: text.slice(start) };
  }

  // LiveText renders a streaming text into box: box gets the class
  // "markdown"; complete blocks are rendered once, the open block again on
  // every delta.
  function LiveText(box, text, markdown) {
    this.box = box;
    this.markdown = markdown;
    this.text = "";
    this.done = 0; // blocks rendered
    this.open = document.createTextNode("");
    box.replaceChildren();
    if (markdown) {
      box.classList.remove("text");
      box.classList.add("markdown");
      this.openBox = el("p", "open-block text");
      this.openBox.append(this.open);
      box.append(this.openBox);
    } else {
      box.append(this.open);
    }
    this.append(text || "");
  }

  LiveText.prototype.append = function (delta) {
    this.text += delta;
    if (!this.markdown) { this.open.appendData(delta); return; }
    const split = splitBlocks(this.text);
    for (; this.done < split.blocks.length; this.done++) {
      this.box.insertBefore(renderBlock(split.blocks[this.done]), this.openBox);
    }
    // The open block: its closed spans (**bold**, `code`, …) formatted,
    // the rest as typed; an open code fence stays plain text.
    const rest = split.rest.replace(/^\n+/, "");
    if (fenceRE.test(rest)) {
      this.openBox.replaceChildren(rest);
    } else {
      this.openBox.replaceChildren();
      inline(this.openBox, rest);
    }
  };

  // nearBottom reports whether a scroller shows its end (within a line).
  function nearBottom(scroller) {
    return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 40;
  }

  // follow runs change and keeps each scroller at its end if it was there.
  function follow(scrollers, change) {
    const at = scrollers.map(function (s) { return s && nearBottom(s); });
    change();
    scrollers.forEach(function (s, i) { if (s && at[i]) s.scrollTop = s.scrollHeight; });
  }

  window.ParleyLive = { LiveText: LiveText, follow: follow, splitBlocks: splitBlocks, renderBlock: renderBlock };
})();
