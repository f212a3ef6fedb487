//go:build !linux

package containerd

import (
	"context"
	"errors"
	"log/slog"
)

// Containers need Linux: elsewhere the package only compiles, and
// CheckHost says why nothing can run.

var errNotLinux = errors.New("containerd: containers need Linux")

func Start(ctx context.Context, cfg Config) (*Daemon, error) { return nil, errNotLinux }
func (d *Daemon) ImportImage(tarball string) error           { return errNotLinux }
func (d *Daemon) Images() (map[string]bool, error)           { return nil, errNotLinux }
func (d *Daemon) Stop() error                                { return nil }
func Cleanup(cfg Config, log *slog.Logger) error             { return nil }
func Leftovers(cfg Config) []string                          { return nil }
