//go:build !linux

package kubelet

import "errors"

func mountTmpfs(dir string, size int64) error { return errors.New("tmpfs volumes need Linux") }
func unmount(dir string) error                { return nil }
func isMountPoint(dir string) bool            { return false }
func mountsUnder(dir string) []string         { return nil }
