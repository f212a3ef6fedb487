package ipam

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lock takes the network directory's exclusive flock(2), as host-local's
// disk.FileLock does, and returns the function that releases it. flock locks
// belong to the open file, so two Allocators in one process exclude each other
// just like two plugin processes do.
func (a *Allocator) lock() (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(a.dir, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the IPAM lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
