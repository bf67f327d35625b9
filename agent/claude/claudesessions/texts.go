package claudesessions

import (
	"hash/fnv"
	"io"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/scan"

	"github.com/tidwall/gjson"
)

// Search reads Claude Code's transcripts through format.
func init() { agent.RegisterFormat(agent.Claude, format{}) }

// format is Claude Code's agent.Format.
type format struct{}

// countRecord applies the message rule (agent.MessageCount) to one
// record: it reports whether rec counts (as a message or as part of the
// last one) and whether it began a new message.
func countRecord(m *agent.MessageCount, rec claude.Rec) (counted, isNew bool) {
	var model, id string
	if rec.Type == claude.TypeAssistant && !rec.Sidechain && !rec.APIError {
		model, id = rec.Message.Get("model").String(), rec.Message.Get("id").String()
	}
	return countMessage(m, rec, model, id)
}

// countMessage is countRecord with the assistant message's model and id
// already read (search reads them in the same pass as its content).
func countMessage(m *agent.MessageCount, rec claude.Rec, model, id string) (counted, isNew bool) {
	switch rec.Type {
	case claude.TypeUser:
		if rec.Sidechain {
			return false, false
		}
		m.N++
		return true, true
	case claude.TypeAssistant:
		if rec.Sidechain || rec.APIError || model == claude.SyntheticModel {
			return false, false
		}
		if id := idHash(id); id != m.Last {
			m.N++
			m.Last = id
			return true, true
		}
		return true, false
	}
	return false, false
}

// idHash stands for a message id in the carry: 0 for none, so a first
// assistant record without an id counts as the first scan always did
// (not at all).
func idHash(id string) uint64 {
	if id == "" {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	if s := h.Sum64(); s != 0 {
		return s
	}
	return 1
}

// countLine applies the rule to one line (lines the incremental count
// parses for nothing else).
func countLine(m *agent.MessageCount, line []byte) {
	if rec, ok := claude.ParseRec(scan.BytesString(line, true)); ok {
		countRecord(m, rec)
	}
}

// Texts implements agent.Format.
func (format) Texts(r io.Reader, mc *agent.MessageCount, fn func(agent.Text)) (int64, error) {
	return scan.LinesCounted(r, mc, func(line []byte) {
		for _, t := range recordTexts(line, true, true, mc) {
			fn(t)
		}
	})
}

// RecordTexts implements agent.Format.
func (format) RecordTexts(line []byte, all, zeroCopy bool, mc *agent.MessageCount) []agent.Text {
	return recordTexts(line, all, zeroCopy, mc)
}

func recordTexts(line []byte, all, zeroCopy bool, mc *agent.MessageCount) []agent.Text {
	rec, ok := claude.ParseRec(scan.BytesString(line, zeroCopy))
	if !ok {
		return nil
	}
	var msg scan.MessageFields
	if rec.Type == claude.TypeAssistant && !rec.Sidechain && (all || mc != nil && !rec.APIError) {
		msg.Read(rec.Message)
	}
	if mc != nil {
		countMessage(mc, rec, msg.Model, msg.ID)
	}
	switch rec.Type {
	case claude.TypeUser:
		if t, ok := claude.HumanPrompt(rec); ok {
			return []agent.Text{{Kind: agent.TextPrompt, Text: t}}
		}
	case claude.TypeAssistant:
		if !all || rec.Sidechain {
			return nil
		}
		var out []agent.Text
		msg.EachBlock(func(b gjson.Result) {
			var f scan.BlockFields
			f.Read(b)
			switch f.Type {
			case "text":
				out = append(out, agent.Text{Kind: agent.TextAssistant, Text: f.Text})
			case "tool_use":
				out = append(out, agent.Text{Kind: agent.TextTool, Text: scan.ToolText(f.Name, f.Input)})
			}
		})
		return out
	case claude.TypeCustomTitle, claude.TypeAITitle, claude.TypeSummary:
		return []agent.Text{{Kind: agent.TextTitle, Text: rec.CustomTitle + rec.AITitle + rec.Summary}}
	}
	return nil
}
