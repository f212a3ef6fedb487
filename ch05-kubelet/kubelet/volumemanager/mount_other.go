//go:build !linux

package volumemanager

import "errors"

func mountTmpfs(dir string, size int64) error { return errors.New("tmpfs volumes need Linux") }
func unmount(dir string) error                { return nil }
func isMountPoint(dir string) bool            { return false }

// MountsUnder: nothing is mounted by us elsewhere.
func MountsUnder(dir string) []string { return nil }
