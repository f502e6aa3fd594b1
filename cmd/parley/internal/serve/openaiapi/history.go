package openaiapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate/transcript"
)

// MaxMessages bounds a request's messages.
const MaxMessages = 1000

// conversation is a request's messages read for a session: the host's
// instructions (system and developer messages), the earlier turns and the
// question (the last message, a user's).
type conversation struct {
	instructions string
	turns        []turn
	question     string
}

type turn struct {
	assistant bool
	text      string
}

// readMessages checks the messages and sorts them into a conversation.
func readMessages(msgs []message) (conversation, error) {
	var c conversation
	if len(msgs) == 0 {
		return c, badParam("messages", "invalid_messages", "messages: at least one message is needed, the last one the user's question")
	}
	if len(msgs) > MaxMessages {
		return c, badParam("messages", "invalid_messages", "messages: %d messages, at most %d", len(msgs), MaxMessages)
	}
	var system []string
	for i, m := range msgs {
		text, err := textOf(m.Content)
		if err != nil {
			return c, badParam(fmt.Sprintf("messages[%d].content", i), "invalid_messages", "messages[%d].content: %s", i, err)
		}
		switch m.Role {
		case "system", "developer":
			if strings.TrimSpace(text) != "" {
				system = append(system, strings.TrimSpace(text))
			}
		case "user":
			c.turns = append(c.turns, turn{text: text})
		case "assistant":
			c.turns = append(c.turns, turn{assistant: true, text: text})
		case "tool", "function":
			return c, badParam(fmt.Sprintf("messages[%d].role", i), "invalid_messages", "messages[%d]: role %q: Parley's models call no client tools", i, m.Role)
		default:
			return c, badParam(fmt.Sprintf("messages[%d].role", i), "invalid_messages", "messages[%d]: unknown role %q (system, developer, user or assistant)", i, m.Role)
		}
	}
	last := msgs[len(msgs)-1]
	if last.Role != "user" || len(c.turns) == 0 || strings.TrimSpace(c.turns[len(c.turns)-1].text) == "" {
		return c, badParam("messages", "invalid_messages", "messages: the last message must be the user's question, with text")
	}
	c.question = strings.TrimSpace(c.turns[len(c.turns)-1].text)
	c.turns = c.turns[:len(c.turns)-1]
	c.instructions = strings.Join(system, "\n\n")
	return c, nil
}

// textOf reads a message's content: a string, an array of text parts, or
// null (an assistant message that only called tools).
func textOf(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("a string or an array of content parts")
	}
	var texts []string
	for j, p := range parts {
		if p.Type != "text" || p.Text == nil {
			return "", fmt.Errorf("part %d is %q: only text parts are read", j, p.Type)
		}
		texts = append(texts, *p.Text)
	}
	return strings.Join(texts, "\n"), nil
}

// entries are the conversation's history as the session's first entries:
// the instructions as the host's note, each earlier turn as the host's
// message or as the answer of the model asked (speaker: the model's name,
// so an agent reads its own earlier answers as its own).
func (c conversation) entries(speaker, display string) []transcript.Entry {
	var out []transcript.Entry
	if c.instructions != "" {
		out = append(out, transcript.Entry{Kind: transcript.KindNote, Speaker: transcript.SpeakerUser, Text: "Instructions for this conversation:\n" + c.instructions})
	}
	for _, t := range c.turns {
		if strings.TrimSpace(t.text) == "" {
			continue
		}
		if t.assistant {
			out = append(out, transcript.Entry{Kind: transcript.KindReply, Speaker: speaker, Display: display, Text: t.text})
			continue
		}
		out = append(out, transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: t.text})
	}
	return out
}
