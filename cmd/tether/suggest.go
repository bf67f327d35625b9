package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/urfave/cli/v3"
)

// closest is the candidate nearest to typed (edit distance, a prefix
// counts as near), or "" when none is close enough to be a likely typo.
// urfave/cli's own suggester always names something, however far.
func closest(typed string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		d := editDistance(typed, c)
		if len(typed) >= 3 && strings.HasPrefix(c, typed) {
			d = 1
		}
		if d > 2 || d*2 >= len(c) {
			continue
		}
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// didYouMean is " — did you mean "x"?" or "".
func didYouMean(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" — did you mean %q?", s)
}

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
	return usageErr(fmt.Errorf("unknown command %q%s (see '%s --help')", word, didYouMean(closest(word, commandNames(cmd))), cmd.FullName()))
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
	s := closest(m[1], names)
	switch {
	case s == "":
		return ""
	case len(s) == 1:
		return "-" + s
	}
	return "--" + s
}
