package summarize

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/internal/shquote"
)

// openCodeAgent is the agent the summary run uses, defined for that run
// alone (OPENCODE_CONFIG_CONTENT): the instructions as its prompt, every
// tool denied (the evidence is untrusted text; the summarizer gets
// nothing to act with).
const openCodeAgent = "tether-summary"

// openCodeTitle is the run's session title: given, so OpenCode makes no
// title request (which would send the evidence a second time).
const openCodeTitle = "tether summary"

// openCodeProvider runs the user's OpenCode as `opencode run --format
// json`, the input on stdin (OpenCode re-quotes argv words), with the
// user's config and provider logins but a throw-away database
// (OPENCODE_DB in a private temporary directory, removed after): `run`
// always writes a session, and it must not land in the user's history.
type openCodeProvider struct{ o Options }

func (p *openCodeProvider) Name() string  { return ProviderOpenCode }
func (p *openCodeProvider) Model() string { return p.o.Model }

func (p *openCodeProvider) argv() []string {
	a := []string{p.o.Bin, "run", "--format", "json", "--agent", openCodeAgent, "--title", openCodeTitle}
	if p.o.Model != "" {
		a = append(a, "--model", p.o.Model) // provider/model
	}
	return a
}

// configContent is the run's extra config: the summary agent, no
// sharing, no snapshots of the (empty) working directory.
func openCodeConfig() string {
	b, _ := json.Marshal(map[string]any{
		"agent": map[string]any{openCodeAgent: map[string]any{
			"mode": "primary", "description": "tether's session summaries", "prompt": Instructions,
			"permission": map[string]any{"*": "deny"}, "tools": map[string]any{"*": false},
		}},
		"share": "disabled", "autoupdate": false, "snapshot": false,
	})
	return string(b)
}

func (p *openCodeProvider) Describe() string {
	a := p.argv()
	if a[0] == "" {
		a[0] = "opencode"
	}
	return "OPENCODE_DB=<temporary> OPENCODE_CONFIG_CONTENT=<summary agent> " + shquote.Join(a) + " < input"
}

func (p *openCodeProvider) Check(ctx context.Context) error {
	if p.o.Bin == "" {
		return fmt.Errorf("%w: opencode not found on PATH (set TETHER_OPENCODE_BIN)", ErrRefused)
	}
	ok, err := helpHas(ctx, []string{p.o.Bin, "run"}, p.o.Env, "--format")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrRefused, err)
	}
	if !ok {
		return fmt.Errorf("%w: %s run has no --format, so its reply cannot be read; update OpenCode", ErrRefused, p.o.Bin)
	}
	return nil
}

func (p *openCodeProvider) Summarize(ctx context.Context, in Input) (string, error) {
	dir, err := os.MkdirTemp("", "tether-summary-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "opencode.db")
	env := append(p.o.Env[:len(p.o.Env):len(p.o.Env)], "OPENCODE_DB="+db, "OPENCODE_CONFIG_CONTENT="+openCodeConfig(),
		"OPENCODE_DISABLE_AUTOUPDATE=1")
	out, err := runIn(ctx, dir, p.argv(), env, "# Session evidence\n"+in.Text)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(db); err != nil {
		// An OpenCode that ignores OPENCODE_DB wrote the run into the
		// user's own database: say so rather than do it again.
		return "", fmt.Errorf("opencode did not use the temporary database (OPENCODE_DB), so the summary run is in your OpenCode history; update OpenCode")
	}
	return openCodeText(out)
}

// openCodeText is the reply in `opencode run --format json` output: one
// JSON event per line; the text parts' text, in order. An error event
// fails the run (OpenCode exits 1 then too, but a recovered error may
// leave a reply: the error wins, nothing is stored).
func openCodeText(out []byte) (string, error) {
	type event struct {
		Type string `json:"type"`
		Part struct {
			ID   string `json:"id"`
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"part"`
		Error json.RawMessage `json:"error"`
	}
	var (
		texts []string
		index = map[string]int{}
	)
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), maxOutput)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			return "", fmt.Errorf("opencode output is not JSON lines: %w", err)
		}
		switch {
		case e.Type == "error":
			return "", fmt.Errorf("opencode failed: %s", oneLine(string(e.Error), 300))
		case e.Type == "text" && e.Part.Type == "text":
			// A part may be reported again as it grows: the last wins.
			if i, ok := index[e.Part.ID]; ok && e.Part.ID != "" {
				texts[i] = e.Part.Text
				continue
			}
			index[e.Part.ID] = len(texts)
			texts = append(texts, e.Part.Text)
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("opencode output: %w", err)
	}
	text := strings.TrimSpace(strings.Join(texts, "\n"))
	if text == "" {
		return "", fmt.Errorf("opencode printed no reply text")
	}
	return text, nil
}
