// Package osfs holds what the operating systems' file systems do
// differently, one file per OS, so that a new platform is one file each:
// today making written files durable (SyncBatch).
package osfs
