package agent

// StatusLiner is an agent that runs tether as its status line (Claude
// Code's statusLine): a command given the session's state as JSON on
// stdin after every assistant message, whose output is shown under the
// prompt.
type StatusLiner interface {
	Agent
	// ParseStatusLine reads the status line's input.
	ParseStatusLine(data []byte) (StatusInput, error)
}

// StatusInput is what tether uses of a status line's input.
type StatusInput struct {
	// Harness is the agent whose status line this is.
	Harness                                    string
	SessionID, TranscriptPath, Cwd, ProjectDir string
	ModelID, ModelName                         string
	// Window is the context window the agent reports (0 when absent).
	Window int64
	// Tokens is the context in use; HasUsage is false before the first
	// reply and after compaction, when the agent reports none.
	Tokens   int64
	HasUsage bool
	// CostUSD is the session's cost so far; HasCost is false when absent.
	CostUSD float64
	HasCost bool
}

// StatusLiner is the first agent of r that has a status line (nil when
// none does).
func (r Registry) StatusLiner() StatusLiner {
	for _, a := range r {
		if s, ok := a.(StatusLiner); ok {
			return s
		}
	}
	return nil
}
