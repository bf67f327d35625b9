package config

import (
	"slices"
	"strings"
	"testing"
)

func TestResolveColumns(t *testing.T) {
	def := DefaultColumns()
	withCost := slices.Insert(slices.Clone(def), len(def)-1, "cost")
	withBoth := slices.Insert(slices.Clone(def), len(def)-1, "summary", "cost")
	for _, c := range []struct {
		list []string
		want []string
	}{
		{nil, def},
		{[]string{"Harness", " ID", "dir", "COST", "title"}, []string{"harness", "id", "dir", "cost", "title"}},
		{[]string{"title", "id"}, []string{"title", "id"}},
		{[]string{"+cost"}, withCost},
		{[]string{"+cost", "+summary"}, withBoth},
		{[]string{"+summary", "+COST"}, withBoth},
		{[]string{"+id"}, def}, // a default column: already there
	} {
		got, err := ResolveColumns(c.list)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: %q %v, want %q", c.list, got, err, c.want)
		}
	}
	if slices.Contains(def, "cost") || slices.Contains(def, "summary") || def[len(def)-1] != "title" {
		t.Errorf("defaults %q", def)
	}
}

func TestResolveColumnsErrors(t *testing.T) {
	for _, c := range []struct {
		list []string
		want string
	}{
		{[]string{"id", "cots"}, `unknown column "cots" — did you mean "cost"? (columns: harness, id,`},
		{[]string{"+sumary"}, `did you mean "summary"?`},
		{[]string{"xyzzy"}, `unknown column "xyzzy" (columns:`},
		{[]string{"id", "ID"}, `column "id" named twice`},
		{[]string{"+cost", "+cost"}, `named twice`},
		{[]string{"id", "+cost"}, "not both"},
		{[]string{"+cost", "id"}, "not both"},
		{[]string{"id", ""}, "an empty column name"},
		{[]string{"+"}, "an empty column name"},
	} {
		_, err := ResolveColumns(c.list)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want %q", c.list, err, c.want)
		}
	}
}

func TestAddColumn(t *testing.T) {
	for _, c := range []struct {
		cols []string
		name string
		want []string
	}{
		{[]string{"id", "title"}, "cost", []string{"id", "cost", "title"}},
		{[]string{"id", "dir"}, "cost", []string{"id", "dir", "cost"}},
		{[]string{"id", "cost", "title"}, "summary", []string{"id", "summary", "cost", "title"}},
		{[]string{"title", "id"}, "cost", []string{"cost", "title", "id"}},
		{[]string{"id", "cost"}, "cost", []string{"id", "cost"}},
	} {
		if got := AddColumn(slices.Clone(c.cols), c.name); !slices.Equal(got, c.want) {
			t.Errorf("AddColumn(%q, %s) = %q, want %q", c.cols, c.name, got, c.want)
		}
	}
}
