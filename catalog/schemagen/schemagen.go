// Package schemagen generates the JSON Schemas of the catalog's --json
// outputs from the Go types.
package schemagen

import (
	"encoding/json"

	"github.com/invopop/jsonschema"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/usage"
)

// Generate returns each schema by name (see catalog.SchemaNames).
func Generate() (map[string][]byte, error) {
	out := map[string][]byte{}
	for name, v := range map[string]any{
		"list":   &catalog.ListOutput{},
		"show":   &catalog.Session{},
		"search": &catalog.SearchOutput{},
		"usage":  &usage.JSON{},
	} {
		r := &jsonschema.Reflector{}
		s := r.Reflect(v)
		s.ID = jsonschema.ID("https://github.com/tether-dev/tether/catalog/" + name + ".schema.json")
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return nil, err
		}
		out[name] = append(b, '\n')
	}
	return out, nil
}
