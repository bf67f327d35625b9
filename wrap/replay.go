package wrap

import (
	"bytes"
	"io"

	"github.com/tether-dev/tether/agent"
)

// maxReplay bounds the standard input the wrapper keeps to send again: a
// prompt, not a data stream.
const maxReplay = 16 << 20

// forksOnFailure reports whether a failed run of res may be retried on a
// fork (compactorRetry): a resume by id of an agent that compacts its
// sessions itself.
func (o Options) forksOnFailure(res agent.ResumeArgs) bool {
	_, ok := o.Agent.(agent.Compactor)
	return ok && !o.Agent.Capabilities().Trim && res.Kind == "id" && res.ID != "" && !o.DisableTrim
}

// keepStdin makes a non-interactive run that may be retried on a fork
// (opencode run -s ID, the prompt piped in) read its standard input from
// a copy the wrapper keeps: the first run reads the prompt, and the
// retry must send it again. The agent reads its input to the end before
// it starts, so reading it first changes nothing for it. Input over
// maxReplay (or one that fails to read) is passed on as it comes, the
// part already read first, and the run is not retried.
func (o Options) keepStdin(res agent.ResumeArgs) Options {
	if o.Stdin == nil || o.Interactive || !res.Print || !o.forksOnFailure(res) {
		return o
	}
	kept, err := io.ReadAll(io.LimitReader(o.Stdin, maxReplay+1))
	exec := o.Exec
	if err != nil || len(kept) > maxReplay {
		rest, once := io.MultiReader(bytes.NewReader(kept), o.Stdin), false
		o.Exec = func(c Child) (int, error) {
			if !once {
				c.Stdin, once = rest, true
			}
			return exec(c)
		}
		o.noRetry = true
		return o
	}
	o.Exec = func(c Child) (int, error) {
		c.Stdin = bytes.NewReader(kept)
		return exec(c)
	}
	return o
}
