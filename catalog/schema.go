package catalog

import (
	"embed"
	"fmt"
)

//go:generate go run ../tools/schemagen

// SchemaNames are the JSON outputs that have a schema: list, show, search,
// and usage (tether usage --json).
var SchemaNames = []string{"list", "show", "search", "usage"}

//go:embed schema/*.json
var schemas embed.FS

// Schema returns the embedded JSON Schema (draft 2020-12) of a --json
// output. The files are generated from the Go types by `go generate
// ./catalog`; a test fails when they drift.
func Schema(name string) ([]byte, error) {
	b, err := schemas.ReadFile("schema/" + name + ".schema.json")
	if err != nil {
		return nil, fmt.Errorf("no schema %q (have list, show, search, usage)", name)
	}
	return b, nil
}
