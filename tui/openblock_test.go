package tui

import (
	"github.com/parleyhq/parley/tui/prefs"

	"fmt"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers/providertest"
)

// fullRender is an answer drawn from scratch, as if it had arrived at once:
// every block (up to a blank line outside a code fence) rendered on its own
// by glamour, a blank line between blocks; an open code fence longer than
// maxMarkdownTail is drawn plain until it closes.
func fullRender(md *markdown, text string, width int) []string {
	var blocks []string
	for {
		i := blockEnd(text)
		if i < 0 {
			break
		}
		blocks, text = append(blocks, text[:i]), text[i+2:]
	}
	var out []string
	add := func(lines []string) {
		if len(out) > 0 {
			out = append(out, strings.Repeat(" ", width))
		}
		out = append(out, fitAll(lines, width)...)
	}
	for _, b := range blocks {
		if strings.TrimSpace(b) != "" {
			add(md.Render(b, width))
		}
	}
	switch tail := strings.TrimLeft(text, "\n"); {
	case strings.TrimSpace(tail) == "":
	case fenceOpen(tail) && len(tail) > maxMarkdownTail:
		add(wrapPlain(tail, width))
	default:
		add(md.Render(tail, width))
	}
	return out
}

// streamCorpus is answers as models write them: prose with inline marks,
// lists, tables, code fences, CJK, emoji, and one long paragraph.
func streamCorpus() map[string]string {
	long := strings.Repeat("The retry loop needs a bound on attempts and on the total wait, or a slow dependency becomes an outage; measure first, then cap (say 5 tries) and give up cleanly. ", 12)
	return map[string]string{
		"prose": "## Bounding retries\n\nThe loop needs **a bound** on attempts and on the _total_ wait, or a slow dependency becomes an outage. " +
			"Use `backoff` with jitter, and see [the guide](https://example.com/retry) for details. A retry that ignores the deadline is a bug.\n\n" +
			"Keep the state explicit and the errors typed, so the caller can tell a timeout from a refusal and decide whether to try again: it's 100% worth it.\n",
		"lists": "Steps:\n\n1. Measure the failure rate before changing anything at all, and write it down.\n2. Cap the wait at the deadline.\n3. Log every attempt with its error.\n\n" +
			"- first: measure\n- then: cap the **total** wait, which is what users feel\n  - nested: with jitter\n- last: give up cleanly\n\n> A quoted remark that is long enough to wrap over two rows of the panel at any width.\n",
		"items": "1. Step 1: back off with `jitter`, cap the wait at the deadline, log the attempt.\n2. Step 2: **bold** then [a link](https://example.com/x) and more words to wrap.\n3. Step 3: a lazy\ncontinuation line, then\n4. Step 4 ends.\n\n" +
			"1. one\n1. again one\n1. and one\n\n- a\n<div>\n- b hidden in the block\n\n* star item\n* star two\n- dash starts another list\n+ plus one\n\n" +
			"9. nine\n10. ten is wider than nine\n11) a paren item\n\n- [ ] a task\n- [x] done\n- plain after tasks\n\n- x\n  - nested under x\n- y\n   more y\n- z\n",
		"tables": "| option | cost | risk |\n|---|---|---|\n| retry | low | storms when every client retries at once |\n| queue | medium | latency |\n| drop | none | data loss |\n\nAfter the table, a sentence.\n",
		"fences": "Like this:\n\n```go\nfor attempt := 0; attempt < 5; attempt++ {\n\tif err := call(); err == nil {\n\t\treturn nil\n\t}\n}\n```\n\nand plain:\n\n```\nattempt 1: timeout after 2s\nattempt 2: ok\n```\n\nDone.\n",
		"cjk":    "重试循环需要对尝试次数和总等待时间设定上限，否则一个缓慢的依赖就会变成一次故障。先测量，再设上限，最后干净地放弃。日本語の文章も同じように折り返されるべきです。\n\n混在 text with 中文 words and English words side by side in one paragraph.\n",
		"emoji":  "Ship it 🚀 when the tests pass ✅ and the retries are bounded 👍; otherwise wait ⏳ and measure 📈 again, because an outage 🔥 costs more than a day.\n\n- 🎯 goal\n- 🧪 test\n",
		"long":   long + "\n\nThen **a second** paragraph, " + long,
	}
}

// Every frame of a streamed answer is its full render: at every chunk
// boundary, for every answer of the corpus, at several widths and chunk
// sizes.
func TestStreamingFramesEqualFullRenders(t *testing.T) {
	md := newMarkdown(newTheme(prefs.ThemeDark))
	for name, answer := range streamCorpus() {
		for _, width := range []int{36, 97} {
			for _, per := range []int{1, 3} {
				if name == "long" && (per == 1 || width != 97) {
					continue // its reference renders are the test's cost: one width, 3 tokens a chunk
				}
				var s streamingText
				for i, chunk := range chunked(providertest.SplitWords(answer), per) {
					s.Append(chunk)
					// The text as received (sanitized, tabs expanded) and shown
					// (an unclosed inline mark held back), drawn from scratch.
					got, want := s.Lines(md, width), fullRender(md, visibleText(s.String()), width)
					if d := firstDiff(got, want); d != "" {
						t.Fatalf("%s, width %d, %d tokens a chunk, after chunk %d (%q): %s", name, width, per, i, chunk, d)
					}
				}
			}
		}
	}
}

// The open paragraph is not rendered whole on every chunk: its rows above
// the last are kept (this is what makes the cost independent of its length).
func TestOpenParagraphKeepsItsFinalRows(t *testing.T) {
	md := newMarkdown(newTheme(prefs.ThemeDark))
	var o openBlock
	text := ""
	for _, w := range providertest.SplitWords(strings.Repeat("a bounded retry loop gives up cleanly ", 40)) {
		text += w
		o.Lines(md, text, 60)
	}
	if len(o.frozen) < 20 || o.anchor < len(text)-60 || len(o.rest) != 1 {
		t.Fatalf("%d frozen rows, anchor %d of %d bytes, %d rows rendered again", len(o.frozen), o.anchor, len(text), len(o.rest))
	}
	o.Lines(md, text+" **bold", 60) // an inline mark: the whole block again
	if o.anchor >= 0 && len(o.frozen) >= 20 {
		t.Errorf("an opening ** did not render the block whole")
	}
}

// A list's items above its last are kept as they are while the last one
// arrives: only the last item is rendered again.
func TestOpenListKeepsItsItems(t *testing.T) {
	md := newMarkdown(newTheme(prefs.ThemeDark))
	var o openBlock
	text := ""
	for i := 1; i <= 12; i++ {
		for _, w := range providertest.SplitWords(fmt.Sprintf("%d. Step %d: back off with `jitter`, cap the wait at the deadline.\n", i, i)) {
			text += w
			o.Lines(md, strings.TrimRight(text, "\n"), 40)
		}
	}
	// The last item wraps: its last row is anchored as a paragraph's.
	if o.item || o.anchor < strings.LastIndex(text, "12.")+4 || len(o.frozen) < 23 || len(o.rest) != 1 {
		t.Fatalf("item anchor %v at %d of %d, %d frozen rows, %d rows rendered again", o.item, o.anchor, len(text), len(o.frozen), len(o.rest))
	}
	o.Lines(md, strings.TrimRight(text, "\n")+" [ref]", 40) // a link may name a reference above: the whole list again
	if o.anchor >= 0 || len(o.frozen) > 0 {
		t.Errorf("a link in the last item did not render the list whole")
	}
	short := "1. one\n2. two\n3. three"
	o.Lines(md, short, 40)
	if !o.item || len(o.frozen) != 2 || len(o.rest) != 1 {
		t.Errorf("a one-row last item: item anchor %v, %d frozen rows, %d rows rendered again", o.item, len(o.frozen), len(o.rest))
	}
}

func firstDiff(got, want []string) string {
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			return fmt.Sprintf("row %d missing, want %q", i, want[i])
		case i >= len(want):
			return fmt.Sprintf("extra row %d %q", i, got[i])
		case got[i] != want[i]:
			return fmt.Sprintf("row %d\n got %q\nwant %q", i, got[i], want[i])
		}
	}
	return ""
}

// BenchmarkStreamParagraphLength streams the same 8 KB of prose as one
// paragraph and as 40 short ones, a frame per chunk of 3 tokens, and
// reports the process CPU per token: the open paragraph's length must not
// change it (goal: within 1.2× of each other).
func BenchmarkStreamParagraphLength(b *testing.B) {
	sentence := "The retry loop needs a bound on attempts and on the total wait, or a slow dependency becomes an outage. "
	var one strings.Builder
	for one.Len() < 8192 {
		one.WriteString(sentence)
	}
	words := providertest.SplitWords(one.String())
	var forty strings.Builder
	for i, w := range words {
		if i > 0 && i%(len(words)/40) == 0 {
			forty.WriteString(".\n\n")
			w = strings.TrimLeft(w, " ")
		}
		forty.WriteString(w)
	}
	for _, c := range []struct{ name, text string }{{"one-8KB-paragraph", one.String()}, {"40-paragraphs", forty.String()}} {
		b.Run(c.name, func(b *testing.B) {
			md := newMarkdown(newTheme(prefs.ThemeDark))
			chunks := chunked(providertest.SplitWords(c.text), 3)
			tokens := 0
			cpu0 := cpuTime()
			for b.Loop() {
				var s streamingText
				for _, ch := range chunks {
					s.Append(ch)
					_ = s.Lines(md, 98)
				}
				tokens += len(chunks) * 3
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(tokens), "µs-cpu/token")
		})
	}
}

// Whatever the text, streaming it word by word draws its full render at
// every word.
func FuzzStreamingFramesEqualFullRenders(f *testing.F) {
	for _, seed := range []string{
		"The loop needs a bound on attempts and on the total wait, or a slow dependency becomes an outage.",
		"Some **bold** and `code` and _emphasis_ words, then plain words until the row wraps over.",
		"In 1990. it was 100% done; 3) not a list (maybe) and a snake_case name.",
		"Ship it 🚀 when tests pass ✅, 中文 words 混在 in one line that wraps over the width.",
		"See www.example.com or http://example.com/x and :smile: then a\\*b &amp; done.",
		"- item one wraps over the width of the panel\n- item two\n\n> quote that is long enough to wrap",
		"1. Step one: back off with `jitter`, cap the wait.\n2. Step two wraps over the width of the panel\n3. three [x]: /y",
		"- a\n- b\n<div>\n- c\n- d",
		"* one\n* two\n  * nested two\n* three\n- dash",
		"Here is how I see **the real cost** of it and **more, with `go te",
	} {
		f.Add(seed)
	}
	md := newMarkdown(newTheme(prefs.ThemeDark))
	f.Fuzz(func(t *testing.T, answer string) {
		if len(answer) > 600 {
			return
		}
		var s streamingText
		for i, chunk := range providertest.SplitWords(answer) {
			s.Append(chunk)
			if d := firstDiff(s.Lines(md, 40), fullRender(md, visibleText(s.String()), 40)); d != "" {
				t.Fatalf("after word %d (%q) of %q: %s", i, chunk, answer, d)
			}
		}
	})
}
