package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/internal/config"
)

// sessionColumns are the columns a sessions table shows, as header names:
// --columns, else the config's [catalog] columns (with cost = true's
// COST); then --summary and --cost, when given, add or take out theirs.
func (a *App) sessionColumns(cmd *cli.Command) ([]string, error) {
	cols, err := a.chosenColumns(cmd)
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"summary", "cost"} {
		switch {
		case !cmd.IsSet(name):
		case cmd.Bool(name):
			cols = config.AddColumn(cols, name)
		default:
			cols = slices.DeleteFunc(cols, func(c string) bool { return c == name })
		}
	}
	if len(cols) == 0 {
		return nil, usageErr(errors.New("no column left to show: --cost=false or --summary=false took out the only one"))
	}
	for i := range cols {
		cols[i] = strings.ToUpper(cols[i])
	}
	return cols, nil
}

// chosenColumns are the columns --columns names, else the config's.
func (a *App) chosenColumns(cmd *cli.Command) ([]string, error) {
	if cmd.IsSet("columns") {
		cols, err := config.ResolveColumns(strings.Split(cmd.String("columns"), ","))
		if err != nil {
			return nil, usageErr(fmt.Errorf("--columns: %w", err))
		}
		return cols, nil
	}
	cfg, err := a.Config()
	if err != nil {
		return nil, err
	}
	// Load checked the list (a bad one is its error): resolved here for
	// the +NAME form.
	cols, err := config.ResolveColumns(cfg.Catalog.Columns)
	if err != nil {
		return nil, fmt.Errorf("config %s: catalog.columns: %w", cfg.Path, err)
	}
	if cfg.Catalog.Cost {
		cols = config.AddColumn(cols, "cost")
	}
	return cols, nil
}
