package app

import (
	"context"
	"errors"

	"github.com/tether-dev/tether/shellinit"
)

// catalogIndexEntries lists every session for the completion index. It is
// the one place completion depends on the session catalog, and the
// function `tether sessions list` calls (through WriteIndex) after a scan
// so that the index is fresh whenever the catalog is.
//
// MERGE(catalog): list through a.catalogFor("") and map each
// catalog.Session to IndexEntry{Harness, ID, LastActivity, IdentityRoot,
// Title}.
func (a *App) catalogIndexEntries(ctx context.Context) ([]shellinit.IndexEntry, error) {
	return nil, errors.New("the session catalog is not part of this build yet")
}
