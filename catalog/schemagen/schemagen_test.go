package schemagen

import (
	"bytes"
	"testing"

	"github.com/tether-dev/tether/catalog"
)

// TestEmbeddedSchemasAreCurrent fails when the Go types changed but the
// embedded schemas were not regenerated (go generate ./catalog).
func TestEmbeddedSchemasAreCurrent(t *testing.T) {
	m, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range catalog.SchemaNames {
		emb, err := catalog.Schema(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(emb, m[name]) {
			t.Errorf("catalog/schema/%s.schema.json is stale: run go generate ./catalog", name)
		}
	}
}
