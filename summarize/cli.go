package summarize

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/internal/shquote"
)

// flagNoPersist keeps Claude Code from adding the summary run to the
// user's history (2.0.77 and later have it).
const flagNoPersist = "--no-session-persistence"

// claudeProvider runs the user's own Claude Code headless: its login, no
// key handled by tether, no tools, no session file.
type claudeProvider struct{ o Options }

func (p *claudeProvider) Name() string  { return ProviderClaude }
func (p *claudeProvider) Model() string { return p.o.Model }

func (p *claudeProvider) argv() []string {
	// --tools "": the evidence is untrusted text; the summarizer gets
	// nothing to act with. --system-prompt replaces Claude Code's own
	// (long) one: cheaper, and the instructions are all it needs.
	return []string{p.o.Bin, "-p", flagNoPersist, "--model", p.o.Model, "--output-format", "json",
		"--tools", "", "--system-prompt", Instructions}
}

func (p *claudeProvider) Describe() string {
	a := p.argv()
	if a[0] == "" {
		a[0] = "claude"
	}
	a[len(a)-1] = "<instructions>"
	return shquote.Join(a) + " < input"
}

func (p *claudeProvider) Check(ctx context.Context) error {
	if p.o.Bin == "" {
		return fmt.Errorf("%w: claude not found on PATH (set TETHER_CLAUDE_BIN)", ErrRefused)
	}
	ok, err := helpHas(ctx, []string{p.o.Bin}, p.o.Env, flagNoPersist)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrRefused, err)
	}
	if !ok {
		return fmt.Errorf("%w: %s has no %s, so a summary would be saved as a new session in your history; update Claude Code", ErrRefused, p.o.Bin, flagNoPersist)
	}
	return nil
}

func (p *claudeProvider) Summarize(ctx context.Context, in Input) (string, error) {
	out, err := run(ctx, p.argv(), p.o.Env, "# Session evidence\n"+in.Text)
	if err != nil {
		return "", err
	}
	return claudeResult(out)
}

// claudeResult takes the reply out of --output-format json: one result
// object (or, in some versions, an array of events ending in it).
func claudeResult(out []byte) (string, error) {
	type result struct {
		Type    string `json:"type"`
		Subtype string `json:"subtype"`
		IsError bool   `json:"is_error"`
		Result  string `json:"result"`
	}
	var r result
	trim := strings.TrimSpace(string(out))
	if strings.HasPrefix(trim, "[") {
		var evs []result
		if err := json.Unmarshal([]byte(trim), &evs); err != nil {
			return "", fmt.Errorf("claude output is not JSON: %w", err)
		}
		for _, e := range evs {
			if e.Type == "result" {
				r = e
			}
		}
	} else if err := json.Unmarshal([]byte(trim), &r); err != nil {
		return "", fmt.Errorf("claude output is not JSON: %w", err)
	}
	if r.Type != "result" {
		return "", fmt.Errorf("claude output has no result")
	}
	if r.IsError || (r.Subtype != "" && r.Subtype != "success") {
		return "", fmt.Errorf("claude failed (%s): %s", r.Subtype, oneLine(r.Result, 300))
	}
	return r.Result, nil
}

// flagEphemeral keeps codex exec from writing a rollout (0.171.0 has it).
const flagEphemeral = "--ephemeral"

// codexProvider runs the user's Codex as `codex exec --ephemeral`, read
// only, the reply taken from --output-last-message.
type codexProvider struct{ o Options }

func (p *codexProvider) Name() string  { return ProviderCodex }
func (p *codexProvider) Model() string { return p.o.Model }

func (p *codexProvider) argv(outFile string) []string {
	a := []string{p.o.Bin, "exec", flagEphemeral, "--skip-git-repo-check", "--sandbox", "read-only", "--color", "never"}
	if p.o.Model != "" {
		a = append(a, "--model", p.o.Model)
	}
	return append(a, "--output-last-message", outFile, "-")
}

func (p *codexProvider) Describe() string {
	a := p.argv("<reply file>")
	if a[0] == "" {
		a[0] = "codex"
	}
	return shquote.Join(a) + " < input"
}

func (p *codexProvider) Check(ctx context.Context) error {
	if p.o.Bin == "" {
		return fmt.Errorf("%w: codex not found on PATH (set TETHER_CODEX_BIN)", ErrRefused)
	}
	ok, err := helpHas(ctx, []string{p.o.Bin, "exec"}, p.o.Env, flagEphemeral)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrRefused, err)
	}
	if !ok {
		return fmt.Errorf("%w: %s exec has no %s, so a summary would be saved as a new thread in your history; update Codex", ErrRefused, p.o.Bin, flagEphemeral)
	}
	return nil
}

func (p *codexProvider) Summarize(ctx context.Context, in Input) (string, error) {
	dir, err := os.MkdirTemp("", "tether-summary-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	outFile := filepath.Join(dir, "reply.txt")
	if _, err := run(ctx, p.argv(outFile), p.o.Env, Prompt(in)); err != nil {
		return "", err
	}
	b, err := os.ReadFile(outFile)
	if err != nil {
		return "", fmt.Errorf("codex wrote no reply: %w", err)
	}
	return string(b), nil
}
