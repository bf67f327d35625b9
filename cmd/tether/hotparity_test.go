package main

import (
	"context"
	"io"
	"slices"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/cmd/internal/hot"
)

// parse runs one of tether's commands on args with its Action replaced by
// capture: whether urfave/cli accepted the command line.
func parse(cmd *cli.Command, args []string, capture func(*cli.Command) error) bool {
	cmd.Action = func(_ context.Context, c *cli.Command) error { return capture(c) }
	cmd.Writer, cmd.ErrWriter = io.Discard, io.Discard
	return cmd.Run(context.Background(), append([]string{cmd.Name}, args...)) == nil
}

var errUsage = usageErr(io.EOF)

// tether-hot parses prompt's flags by hand: it must accept and reject the
// command lines tether does, with the same values.
func TestHotPromptFlagsAgreeWithTether(t *testing.T) {
	a := newTestApp(t)
	for _, args := range [][]string{
		nil, {"--format", "x {pct}"}, {"--format=x"}, {"-format", "y"}, {"--color", "always"},
		{"--color=never", "--shell", "zsh", "--stamp-id", "7"}, {"--shell", "fish", "--stamp-id=123"},
		{"--shell", "bash"}, {"--timeout", "200ms"}, {"--timeout", "bogus"}, {"--nope"}, {"word"},
		{"--format"}, {"--color", "purple"}, {"--shell", "tcsh"}, {"--", "x"}, {"--format", "a", "--format", "b"},
	} {
		hf, hotOK := hot.ParsePromptFlags(args)
		hotOK = hotOK && hot.CheckPromptFlags(&hf) == nil
		var tf hot.PromptFlags
		tetherOK := parse(a.promptCommand(), args, func(c *cli.Command) error {
			tf = hot.PromptFlags{Format: c.String("format"), Color: c.String("color"), Shell: c.String("shell"),
				StampID: c.String("stamp-id"), Timeout: c.Duration("timeout")}
			if c.Args().Len() > 0 {
				return errUsage
			}
			return hot.CheckPromptFlags(&tf)
		})
		if hotOK != tetherOK || (hotOK && hf != tf) {
			t.Errorf("prompt %q: tether-hot accepts %v (%+v), tether accepts %v (%+v)", args, hotOK, hf, tetherOK, tf)
		}
	}
}

// tether-hot answers completion itself when it parses the command line,
// and leaves the rest to tether: whatever it accepts, tether accepts with
// the same shell and words; whatever tether rejects, it does not accept.
func TestHotCompleteArgsAgreeWithTether(t *testing.T) {
	a := newTestApp(t)
	for _, args := range [][]string{
		{"--", "claude", "--resume", ""}, {"--shell", "zsh", "--", "codex", "resume", "ab"}, {"--shell=fish", "--", "x"},
		{"--line", "claude --resume 12"}, {"--shell", "tcsh", "--", "x"}, {"--refresh-index"}, {"--nope", "--", "x"},
		{"--shell"}, {"claude", "--resume"},
	} {
		hs, hw, hotOK := hot.ParseCompleteArgs(args)
		var ts string
		var tw []string
		tetherOK := parse(a.completeCommand(), args, func(c *cli.Command) error {
			if c.Bool("refresh-index") {
				return nil
			}
			ts, tw = c.String("shell"), c.Args().Slice()
			if c.IsSet("line") {
				tw = hot.SplitLine(c.String("line"))
			}
			return nil
		})
		if hotOK && (!tetherOK || hs != ts || !slices.Equal(hw, tw)) {
			t.Errorf("complete %q: tether-hot takes shell %q words %q; tether accepts %v with %q %q", args, hs, hw, tetherOK, ts, tw)
		}
		if !tetherOK && hotOK {
			t.Errorf("complete %q: tether rejects it, tether-hot accepts it", args)
		}
	}
}
