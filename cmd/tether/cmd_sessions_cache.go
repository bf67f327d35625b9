package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/catalog"
)

func (a *App) sessionsCacheCommand() *cli.Command {
	return &cli.Command{
		Name:  "cache",
		Usage: "manage the catalog cache",
		Commands: []*cli.Command{{
			Name:  "clear",
			Usage: "delete the catalog cache (it is rebuilt on the next list)",
			Action: func(ctx context.Context, cmd *cli.Command) error {
				n, err := catalog.ClearCache(a.Loc.CacheDir)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.IO.Out, "removed %d cache %s from %s\n", n, plural(n, "file", "files"), a.Loc.CacheDir)
				return nil
			},
		}},
	}
}
