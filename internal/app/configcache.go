package app

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/internal/config/configfile"
)

// configCacheCommand is `tether config-cache`, which tether-hot runs when
// its decoded copy of the config file is missing or older than the file:
// tether-hot does not link the TOML reader (see internal/config).
func (a *App) configCacheCommand() *cli.Command {
	return &cli.Command{
		Name:   "config-cache",
		Usage:  "decode the config file for tether-hot",
		Hidden: true,
		Description: "Reads the config file (as every tether command does) and writes the result,\n" +
			"settings or error, to " + config.CacheFile + " in tether's cache directory, stamped with the\n" +
			"file's version, for tether-hot, which runs it when the file changed, and prints it\n" +
			"(tether-hot uses the printed copy where the cache directory cannot be written).\n" +
			"Nothing is written when there is no config file.",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usageErr(fmt.Errorf("config-cache takes no arguments, got %q", cmd.Args().First()))
			}
			data, err := configfile.WriteCache(a.Loc.ConfigFile, config.CachePath(a.Loc.CacheDir))
			if len(data) > 0 {
				if _, werr := a.IO.Out.Write(append(data, '\n')); werr != nil && err == nil {
					err = werr
				}
			}
			return err
		},
	}
}
