package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/iostreams"
)

// An OpenCode session takes --compact or --fork-keep N, one of them and
// nothing of a Claude trim; a Claude one takes neither. All refused
// before anything runs.
func TestTrimOpenCodeFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	s := catalog.Session{Harness: "opencode", ID: "ses_dcd139480ffeoAscKd2JgtbA1X"}
	cases := []struct {
		opts trimOptions
		want string
	}{
		{trimOptions{}, "give --compact"},
		{trimOptions{Compact: true, ForkKeep: 2}, "give --compact"},
		{trimOptions{Compact: true, Fit: "60%"}, "--compact or --fork-keep N only"},
		{trimOptions{ForkKeep: 1, DryRun: true}, "--compact or --fork-keep N only"},
	}
	for _, c := range cases {
		c.opts.IO = ios
		err := runTrimOpenCode(c.opts, s)
		if err == nil || !strings.Contains(err.Error(), c.want) || exitcode.Of(err) != exitcode.Usage {
			t.Errorf("%+v: %v", c.opts, err)
		}
	}
	err := runTrim(trimOptions{IO: ios, Ctx: context.Background(), Session: "3f2a", Compact: true,
		OpenCode: &openCodeTrim{Catalog: func() (*catalog.Catalog, error) { return &catalog.Catalog{}, nil }}})
	if err == nil || !strings.Contains(err.Error(), "are for OpenCode sessions") {
		t.Errorf("--compact on a Claude id: %v", err)
	}
	err = runTrim(trimOptions{IO: ios, Ctx: context.Background(), Session: "ses_dcd1", ForkKeep: 1,
		OpenCode: &openCodeTrim{Catalog: func() (*catalog.Catalog, error) { return &catalog.Catalog{}, nil }}})
	if !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown OpenCode id: %v", err)
	}
}
