package wrap

import "strings"

// SelfReportInstruction asks the model for its own estimate of context use,
// in a form the Stop hook parses ([ctx: ~NN%]) to compare with the real
// token count.
const SelfReportInstruction = "At the very end of every reply, on its own line, state how full you estimate " +
	"your context window is, exactly in the form [ctx: ~NN%] (for example [ctx: ~42%])."

// AppendSystemPrompt adds text to Claude's --append-system-prompt. Claude
// keeps only the last value of a repeated flag, so an existing value is
// extended rather than shadowed.
func AppendSystemPrompt(args []string, text string) []string {
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
