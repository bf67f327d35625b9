package hooks

import (
	"testing"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/agent/opencode"
	"github.com/tether-dev/tether/state"
)

// TestOpenCodePluginPayloads: what tether's OpenCode plugin sends (see
// agent/opencode's plugin test for how it makes them) is recognised as
// OpenCode's without --harness, and gives the lifecycle events with the
// usage the payload carries: no transcript is read.
func TestOpenCodePluginPayloads(t *testing.T) {
	h := newHandlerEnv(t)
	h.Agents = agent.Registry{claude.New(""), codex.New(""), opencode.New("", "")}
	id, cwd := "ses_dcd139480ffeoAscKd2JgtbA1X", t.TempDir()
	send := func(event, extra string) Result {
		return h.handle(t, `{"hook_event_name":"`+event+`","session_id":"`+id+`","cwd":"`+cwd+`","opencode_event":"x"`+extra+`}`)
	}
	if res := send("SessionStart", `,"source":"startup"`); res.Harness != agent.OpenCode || res.Event != EvSpawn {
		t.Fatalf("SessionStart: %+v", res)
	}
	res := send("Stop", `,"tokens":150000,"context_window":200000,"model":"fake-model"`)
	if res.Event != EvTurnEnd || !res.State.UsageKnown || res.State.Tokens != 150000 || res.State.Window != 200000 || res.State.Percent != 75 {
		t.Fatalf("Stop: %+v", res.State)
	}
	// The prompt segment reads the root's latest session: the percent is
	// there.
	if s, err := state.LatestForRoot(h.StateDir, res.Root); err != nil || s.Percent != 75 || s.Harness != agent.OpenCode {
		t.Errorf("root's latest: %+v %v", s, err)
	}
	r := h.records(t, EvTurnEnd)[0]
	if r.Get("tokens").Int() != 150000 || r.Get("pct").Float() != 75 || r.Get("transcript_bytes").Exists() || r.Get("usage_error").Exists() {
		t.Errorf("turn_end: %s", r.Raw)
	}
	if res := send("StopFailure", `,"error":"ContextOverflowError"`); res.Event != EvTurnFailure {
		t.Fatalf("StopFailure: %+v", res)
	}
	if r := h.records(t, EvTurnFailure)[0]; !r.Get("prompt_too_long").Bool() {
		t.Errorf("turn_failure: %s", r.Raw)
	}
	send("StopFailure", `,"error":"APIError"`)
	if r := h.records(t, EvTurnFailure)[1]; r.Get("prompt_too_long").Bool() {
		t.Errorf("an APIError is not prompt too long: %s", r.Raw)
	}
	send("PreCompact", `,"trigger":"auto"`)
	res = send("PostCompact", `,"trigger":"auto"`)
	if res.Event != EvCompactEnd || res.State.UsageKnown || !res.State.CompactPending {
		t.Fatalf("PostCompact: %+v", res.State)
	}
	if r := h.records(t, EvCompactEnd)[0]; r.Get("tokens_before").Int() != 150000 || r.Get("tokens_after_known").Bool() {
		t.Errorf("compact_end: %s", r.Raw)
	}
	res = send("Stop", `,"tokens":1200,"context_window":200000,"model":"fake-model"`)
	if res.State.Tokens != 1200 || res.State.CompactPending {
		t.Errorf("Stop after the compaction: %+v", res.State)
	}
	if r := h.records(t, EvTurnEnd)[1]; !r.Get("first_after_compaction").Bool() {
		t.Errorf("turn_end: %s", r.Raw)
	}
	// A turn that ended before any assistant message had tokens: the
	// usage stays what it was, unknown for this turn, without waiting.
	res = send("Stop", ``)
	if r := h.records(t, EvTurnEnd)[2]; r.Get("usage_found").Bool() || r.Get("bytes_read").Exists() {
		t.Errorf("turn_end without tokens: %s", r.Raw)
	}
	if res := send("SessionEnd", `,"reason":"exit"`); res.Event != EvSessionEnd || !res.State.Ended {
		t.Errorf("SessionEnd: %+v", res)
	}
}

// TestOpenCodePreCompactUsage: OpenCode compacts past its threshold
// within the turn, before any Stop: the PreCompact's tokens are the
// tokens before the compaction.
func TestOpenCodePreCompactUsage(t *testing.T) {
	h := newHandlerEnv(t)
	h.Agents = agent.Registry{claude.New(""), opencode.New("", "")}
	base := `{"session_id":"ses_a","cwd":"` + t.TempDir() + `","opencode_event":"x","hook_event_name":`
	h.handle(t, base+`"SessionStart","source":"startup"}`)
	h.handle(t, base+`"PreCompact","trigger":"auto","tokens":196000,"context_window":200000,"model":"m"}`)
	h.handle(t, base+`"PostCompact","trigger":"auto"}`)
	if r := h.records(t, EvCompactStart)[0]; r.Get("tokens_before").Int() != 196000 {
		t.Errorf("compact_start: %s", r.Raw)
	}
	if r := h.records(t, EvCompactEnd)[0]; r.Get("tokens_before").Int() != 196000 || r.Get("tokens_after_known").Bool() {
		t.Errorf("compact_end: %s", r.Raw)
	}
}
