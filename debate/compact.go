package debate

import (
	"context"
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// compact condenses the oldest blocks of the verbatim part into summary
// entries while that part is over b.Verbatim. Summaries are history
// entries, announced and stored like any other; the turns they cover stay.
func (e *Engine) compact(ctx context.Context, b config.Budget) {
	e.compactMu.Lock()
	defer e.compactMu.Unlock()
	for calls := 0; calls < maxModelSummaries; {
		if ctx.Err() != nil {
			return
		}
		h := e.History()
		covered := h.Compacted()
		if verbatimTokens(h, covered, b.Verbatim) <= b.Verbatim {
			return
		}
		block := compactionBlock(h, covered, b.Block)
		if len(block) == 0 {
			return
		}
		if e.summarise(ctx, block, b) {
			calls++
		}
	}
}

// verbatimTokens estimates the turns after covered, stopping once past limit.
func verbatimTokens(h *transcript.History, covered, limit int) int {
	used := 0
	for en := range h.Walk() {
		if en.Turn <= covered || used > limit {
			break
		}
		if en.Kind != transcript.KindSummary {
			used += entryTokens(en)
		}
	}
	return used
}

// compactionBlock is the oldest run of settled turns after covered worth
// about blockTokens. It stops before a turn still streaming, which a
// summary must not claim to cover, and before the newest turn, which every
// prompt shows verbatim (the other agent's latest answer in alternate).
func compactionBlock(h *transcript.History, covered, blockTokens int) []transcript.Entry {
	newest := 0
	for en := range h.Walk() {
		if en.Kind != transcript.KindSummary {
			newest = en.Turn
			break
		}
	}
	var block []transcript.Entry
	used, prev := 0, covered
	if _, held := h.Get(covered + 1); !held {
		// A session resumed without summaries holds only its tail: the
		// block starts at the first turn in memory (older ones are on disk).
		prev = -1
	}
	for en := range h.WalkAfter(covered) {
		if (prev >= 0 && en.Turn != prev+1) || used >= blockTokens || en.Turn >= newest {
			break
		}
		prev = en.Turn
		if en.Kind == transcript.KindSummary || en.IsStatusNote() {
			continue
		}
		block = append(block, *en)
		used += entryTokens(en)
	}
	return block
}

func entryTokens(en *transcript.Entry) int { return transcript.EstimateTokens(en.Text) + 4 }

const summariseInstruction = "You condense part of a conversation for the participants who continue it. Write a compact summary (bullet points, at most about %d words) of the turns the host sends: who said what, the decisions, open questions, and any numbers, names or code identifiers that matter later. Do not add opinions."

// summarise condenses block into one summary entry: by the configured
// summariser agent, or by an extractive digest when there is none, it is a
// demo agent, or its call fails. It reports whether it called a model.
func (e *Engine) summarise(ctx context.Context, block []transcript.Entry, b config.Budget) bool {
	first, last := block[0].Turn, block[len(block)-1].Turn
	capTokens := max(b.Summary/3, 100)
	digest := Digest(block, capTokens*4)
	prompt := fmt.Sprintf("summary of turns %d–%d", first, last)
	a, ok := e.Agent(e.Config.Context.Summarizer)
	if !ok || a.Provider == nil || a.Provider.Name() == "demo" {
		e.AddEntry(transcript.Entry{Kind: transcript.KindSummary, Speaker: transcript.SpeakerSystem, Display: "Summary", Prompt: prompt, Text: digest, Covers: last})
		return false
	}
	var text strings.Builder
	for _, en := range block {
		fmt.Fprintf(&text, "[%s]: %s\n\n", displayName(en), sanitize.Clip(strings.TrimSpace(en.Text), b.Block))
	}
	turn := e.Reserve(TurnSpec{
		Agent: a, Kind: transcript.KindSummary, Prompt: prompt,
		Instruction: fmt.Sprintf(summariseInstruction, capTokens*3/4),
		Messages:    []providers.Message{{Role: providers.RoleUser, Content: sanitize.Clip(text.String(), b.Block*2*4)}},
		MaxTokens:   capTokens * 2,
		Settle: func(en transcript.Entry) transcript.Entry {
			en.Covers = last
			if en.Status != transcript.StatusComplete || strings.TrimSpace(en.Text) == "" {
				if en.Error != "" {
					en.Error = "summariser failed, extractive digest used: " + en.Error
				}
				en.Text, en.Status = digest, transcript.StatusComplete
			}
			return en
		},
	})
	_, _ = turn.Run(ctx)
	return true
}

// Digest is the extractive summary of entries: each one's speaker and
// first sentence, within maxBytes.
func Digest(entries []transcript.Entry, maxBytes int) string {
	per := max(maxBytes/max(len(entries), 1), 60)
	var b strings.Builder
	for _, en := range entries {
		text := strings.TrimSpace(en.Text)
		if text == "" || en.IsStatusNote() {
			continue
		}
		line := "- " + displayName(en) + ": " + leadSentence(text)
		line = sanitize.Clip(line, per)
		if b.Len()+len(line)+1 > maxBytes {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
	}
	return b.String()
}

// leadSentence is s up to its first sentence end or line break, as one line.
func leadSentence(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	for _, end := range []string{". ", "! ", "? "} {
		if i := strings.Index(s, end); i >= 0 {
			s = s[:i+1]
		}
	}
	return strings.Join(strings.Fields(s), " ")
}
