// Command schemagen writes catalog/schema/*.schema.json; run by `go generate
// ./catalog` from the catalog directory.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/catalog/schemagen"
)

func main() {
	m, err := schemagen.Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	for name, b := range m {
		if err := os.WriteFile(filepath.Join("schema", name+".schema.json"), b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
