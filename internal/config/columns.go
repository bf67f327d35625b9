package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tether-dev/tether/internal/suggest"
)

// SessionColumns are the columns a `tether sessions` table can show, in
// the order they go by default; optionalColumns are shown only when asked
// for ([catalog] columns, --columns, --summary, --cost).
var SessionColumns = []string{"harness", "id", "dir", "branch", "human", "active", "state", "tmux", "ctx", "msgs", "summary", "cost", "title"}

var optionalColumns = []string{"summary", "cost"}

// DefaultColumns are the columns a table shows when nothing chooses others.
func DefaultColumns() []string {
	return slices.DeleteFunc(slices.Clone(SessionColumns), func(c string) bool { return slices.Contains(optionalColumns, c) })
}

// ResolveColumns is the columns list names, in its order, or, when every
// name has a leading + ("+cost"), the default ones with those added (see
// AddColumn). Names are case-insensitive; an empty list is the default.
func ResolveColumns(list []string) ([]string, error) {
	if len(list) == 0 {
		return DefaultColumns(), nil
	}
	add := strings.HasPrefix(strings.TrimSpace(list[0]), "+")
	named := make([]string, 0, len(list))
	for _, item := range list {
		name := strings.ToLower(strings.TrimSpace(item))
		plus := strings.HasPrefix(name, "+")
		name = strings.TrimPrefix(name, "+")
		switch {
		case plus != add:
			return nil, errors.New("either name every column or add to the default ones with +NAME, not both")
		case name == "":
			return nil, fmt.Errorf("an empty column name (columns: %s)", strings.Join(SessionColumns, ", "))
		case !slices.Contains(SessionColumns, name):
			return nil, fmt.Errorf("unknown column %q%s (columns: %s)", name, suggest.DidYouMean(suggest.Closest(name, SessionColumns)), strings.Join(SessionColumns, ", "))
		case slices.Contains(named, name):
			return nil, fmt.Errorf("column %q named twice", name)
		}
		named = append(named, name)
	}
	if !add {
		return named, nil
	}
	cols := DefaultColumns()
	for _, name := range named {
		cols = AddColumn(cols, name)
	}
	return cols, nil
}

// AddColumn is cols with name in it: where it goes by default, before the
// first of cols that follows it in SessionColumns (COST and SUMMARY before
// the title), else last. cols holding name already is cols.
func AddColumn(cols []string, name string) []string {
	if slices.Contains(cols, name) {
		return cols
	}
	rank := slices.Index(SessionColumns, name)
	at := slices.IndexFunc(cols, func(c string) bool { return slices.Index(SessionColumns, c) > rank })
	if at < 0 {
		at = len(cols)
	}
	return slices.Insert(cols, at, name)
}
