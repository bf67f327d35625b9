package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/catalog"
)

func (a *App) sessionsSchemaCommand() *cli.Command {
	return &cli.Command{
		Name:      "schema",
		Usage:     "print the JSON Schema of a --json output (list, show or search)",
		ArgsUsage: "[list|show|search]",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 1 {
				return usageErr(fmt.Errorf("schema takes at most one name, got %d", cmd.NArg()))
			}
			name := cmd.Args().First()
			if name == "" {
				name = "list"
			}
			b, err := catalog.Schema(name)
			if err != nil {
				return usageErr(err)
			}
			_, err = a.IO.Out.Write(b)
			return err
		},
	}
}
