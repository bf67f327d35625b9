package claude

import (
	"errors"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
)

var _ agent.StatusLiner = (*Agent)(nil)

// ParseStatusLine implements agent.StatusLiner: Claude Code's statusLine
// JSON. Tokens is context_window.current_usage's input + cache creation
// + cache read (current_usage is null before the first reply and after
// compaction).
func (*Agent) ParseStatusLine(data []byte) (agent.StatusInput, error) {
	data = jsonl.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' || !gjson.ValidBytes(data) {
		return agent.StatusInput{}, errors.New("statusLine input is not a JSON object")
	}
	r := gjson.ParseBytes(data)
	in := agent.StatusInput{
		Harness:   agent.Claude,
		SessionID: r.Get("session_id").String(), TranscriptPath: r.Get("transcript_path").String(),
		Cwd: r.Get("cwd").String(), ProjectDir: r.Get("workspace.project_dir").String(),
		ModelID: r.Get("model.id").String(), ModelName: r.Get("model.display_name").String(),
		Window: r.Get("context_window.context_window_size").Int(),
	}
	if c := r.Get("cost.total_cost_usd"); c.Type == gjson.Number {
		in.CostUSD, in.HasCost = c.Float(), true
	}
	if cu := r.Get("context_window.current_usage"); cu.IsObject() {
		in.HasUsage = true
		in.Tokens = ContextTokens(cu)
	}
	return in, nil
}
