package agent

// CLI is the agent's command line as tether's wrapper reads and rewrites
// it: everything else on it is passed through untouched.
type CLI interface {
	// ParseResume reads what an argument list asks to resume, without
	// otherwise interpreting it: unknown flags pass through untouched.
	ParseResume(args []string) ResumeArgs
	// AppendSystemPrompt is args with text added to the session's system
	// prompt. Only for an agent whose Capabilities have SystemPrompt;
	// another returns args as they are.
	AppendSystemPrompt(args []string, text string) []string
	// ContextFiles are the project instruction files the agent reads from
	// a session's directory, which a fresh session in its place still
	// gets.
	ContextFiles() []string
}

// ResumeArgs is what an argument list asks to resume.
type ResumeArgs struct {
	// Kind is "" (a new session), "id", "picker" (the agent's own
	// picker), "continue" (Claude's latest in this directory) or "last"
	// (Codex's latest).
	Kind string
	ID   string
	Fork bool
	// Print is set for non-interactive runs (claude -p, codex exec).
	Print bool
	// OneDocument is set when the whole output of the run is one JSON
	// document (claude -p --output-format json): of several attempts, a
	// consumer must get exactly one.
	OneDocument bool
	// Fresh is the argument list with the resume arguments removed, for a
	// fresh start in place of the resume.
	Fresh []string
	// At is the index of the argument holding ID (-1: none), which is
	// IDPrefix followed by the id ("--resume=" for --resume=ID).
	At       int
	IDPrefix string
}

// WithID is args (the list r was parsed from) resuming id in place of
// r.ID.
func (r ResumeArgs) WithID(args []string, id string) []string {
	out := append([]string(nil), args...)
	if r.At >= 0 && r.At < len(out) {
		out[r.At] = r.IDPrefix + id
	}
	return out
}
