package main

import (
	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/agent"
)

// choiceFlag is a string flag that takes one of a fixed set of values. The
// set lives on the flag, in the command tree, so completion offers exactly
// what the command accepts.
type choiceFlag struct {
	*cli.StringFlag
	choices []string
}

// choice makes f a flag of the values choices.
func choice(f *cli.StringFlag, choices ...string) cli.Flag {
	return &choiceFlag{StringFlag: f, choices: choices}
}

// harnessNames are the values --harness completes to: every agent tether
// knows, in the registry's order (the flags are built before any
// registry is; TestHarnessNamesAreTheRegistrys keeps the two the same).
var harnessNames = []string{agent.Claude, agent.Codex, agent.OpenCode}

// Choices is what completion offers for the flag's value.
func (f *choiceFlag) Choices() []string { return f.choices }

// choicesOf returns the values f takes, or nil for a free-form flag.
func choicesOf(f cli.Flag) []string {
	if c, ok := f.(interface{ Choices() []string }); ok {
		return c.Choices()
	}
	return nil
}
