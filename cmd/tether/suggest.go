package main

import (
	"fmt"
	"regexp"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/internal/suggest"
)

func commandNames(cmd *cli.Command) []string {
	var names []string
	for _, sub := range cmd.Commands {
		if !sub.Hidden {
			names = append(names, sub.Names()...)
		}
	}
	return names
}

// unknownCommand is the usage error for a word where cmd wanted one of its
// subcommands.
func unknownCommand(cmd *cli.Command, word string) error {
	return usageErr(fmt.Errorf("unknown command %q%s (see '%s --help')", word, suggest.DidYouMean(suggest.Closest(word, commandNames(cmd))), cmd.FullName()))
}

var undefinedFlag = regexp.MustCompile(`flag provided but not defined: -+(\S+)`)

// flagSuggestion names the flag of cmd closest to the one in err, spelled
// with its dashes, or "".
func flagSuggestion(cmd *cli.Command, err error) string {
	m := undefinedFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	var names []string
	for _, f := range cmd.Flags {
		names = append(names, f.Names()...)
	}
	names = append(names, "help")
	s := suggest.Closest(m[1], names)
	switch {
	case s == "":
		return ""
	case len(s) == 1:
		return "-" + s
	}
	return "--" + s
}
