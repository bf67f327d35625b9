package agent

import (
	"sort"
	"strings"

	"github.com/tether-dev/tether/internal/shquote"
)

// ResumeSpec is how to continue the session: run Argv in Dir with Env
// added to the environment.
type ResumeSpec struct {
	Argv []string          `json:"argv" jsonschema:"minItems=1"`
	Dir  string            `json:"dir" jsonschema:"minLength=1"`
	Env  map[string]string `json:"env,omitempty"`
}

// ShellCommand is the resume spec as one shell command line:
// cd DIR && [ENV=…] ARGV…. It is printed on terminals, so a word holding
// a control character is written as $'…' (shquote.Printable).
func (r ResumeSpec) ShellCommand() string { return r.ShellWith(shquote.Printable) }

// ShellWith is ShellCommand with every word quoted by q (the picker
// prints fish's quoting for fish; `cd DIR && VAR=value cmd` is valid
// there too, fish 3.1+).
func (r ResumeSpec) ShellWith(q func(string) string) string {
	var b strings.Builder
	b.WriteString("cd " + q(r.Dir) + " &&")
	keys := make([]string, 0, len(r.Env))
	for k := range r.Env {
		keys = append(keys, k)
	}
	for _, k := range sortStrings(keys) {
		b.WriteString(" " + k + "=" + q(r.Env[k]))
	}
	for _, a := range r.Argv {
		b.WriteString(" " + q(a))
	}
	return b.String()
}

// EnvList is r.Env as KEY=VALUE entries, sorted.
func (r ResumeSpec) EnvList() []string {
	out := make([]string, 0, len(r.Env))
	for k, v := range r.Env {
		out = append(out, k+"="+v)
	}
	return sortStrings(out)
}

// Via is the one way tether itself resumes a session it found: through
// its own wrapper, self run [flags…] ARGV… ("tether run claude --resume
// ID", "tether run codex resume ID"), so the preflight (running, reset,
// size) and the fallback (missing, stale, prompt too long) apply exactly
// as they do to a resume typed in a shell with the shims. Every resume
// command the catalog builds starts an agent the wrapper knows. Without
// self (tether's executable unknown) the spec is returned unchanged.
func (r ResumeSpec) Via(self string, flags ...string) ResumeSpec {
	if self == "" || len(r.Argv) == 0 {
		return r
	}
	argv := append(append([]string{self, "run"}, flags...), r.Argv...)
	return ResumeSpec{Argv: argv, Dir: r.Dir, Env: r.Env}
}

// sortStrings is s without duplicates or empty strings, sorted.
func sortStrings(s []string) []string {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	out := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
