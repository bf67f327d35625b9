package state

import (
	"encoding/json"
	"time"
)

// Binding remembers where a session was last opened.
type Binding struct {
	Tmux    string    `json:"tmux"`
	Dir     string    `json:"dir"`
	Updated time.Time `json:"updated"`
}

// Bindings is <stateDir>/bindings.json, keyed by session key
// (harness:id).
type Bindings struct {
	Version  int                `json:"version"`
	Sessions map[string]Binding `json:"sessions"`
}

// LoadBindings reads the bindings file at path; a missing file is empty. A
// file that does not parse is an error naming it, so it is never
// overwritten.
func LoadBindings(path string) (Bindings, error) {
	b := Bindings{Version: 1, Sessions: map[string]Binding{}}
	if err := readJSON(path, "a bindings file", &b); err != nil {
		return b, err
	}
	if b.Sessions == nil {
		b.Sessions = map[string]Binding{}
	}
	return b, nil
}

// Save writes the bindings to path atomically.
func (b Bindings) Save(path string) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	return write(path, append(data, '\n'), false)
}
