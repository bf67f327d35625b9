package claude

import (
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/agent"
)

// ParseResume implements agent.CLI: claude [flags] with --resume ID (or
// -r, --resume=ID), --continue, --fork-session and -p among them.
func (*Agent) ParseResume(args []string) agent.ResumeArgs {
	r := agent.ResumeArgs{At: -1, OneDocument: outputFormat(args) == "json"}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		switch {
		case a == "-r" || a == "--resume":
			r.Kind = "id"
			// --resume without a value opens Claude's picker; only a value
			// that is not another flag is an id.
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				r.ID, r.At = args[i+1], i+1
				i++
			} else {
				r.Kind = "picker"
			}
			continue
		case strings.HasPrefix(a, "--resume="):
			r.Kind, r.ID, r.At, r.IDPrefix = "id", strings.TrimPrefix(a, "--resume="), i, "--resume="
			continue
		case a == "-c" || a == "--continue":
			r.Kind = "continue"
			continue
		case a == "--fork-session":
			r.Fork = true
			continue
		case a == "-p" || a == "--print":
			r.Print = true
		}
		out = append(out, a)
	}
	r.Fresh = out
	// Only a -p run prints its output as one document.
	r.OneDocument = r.OneDocument && r.Print
	return r
}

// outputFormat returns the value of --output-format ("" when absent).
func outputFormat(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--output-format="); ok {
			return v
		}
		if a == "--output-format" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// AppendSystemPrompt implements agent.CLI: --append-system-prompt. Claude
// keeps only the last value of a repeated flag, so an existing value is
// extended rather than shadowed.
func (*Agent) AppendSystemPrompt(args []string, text string) []string {
	out := append([]string(nil), args...)
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == "--":
			return append(out[:i:i], append([]string{"--append-system-prompt", text}, out[i:]...)...)
		case out[i] == "--append-system-prompt" && i+1 < len(out):
			out[i+1] += "\n\n" + text
			return out
		case strings.HasPrefix(out[i], "--append-system-prompt="):
			out[i] += "\n\n" + text
			return out
		}
	}
	return append(out, "--append-system-prompt", text)
}

// ContextFiles implements agent.CLI. A function, not a package-level
// slice: tether-hot links this package, and every initialiser runs at
// the start of every process.
func (*Agent) ContextFiles() []string {
	return []string{"CLAUDE.md", "CLAUDE.local.md", filepath.Join(".claude", "CLAUDE.md")}
}
