package testenv

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// BenchMain is the main of a benchmark command (make bench-*): it parses
// the flags and runs run until it returns or the user stops it (Ctrl-C,
// SIGTERM: run's context ends, so it can stop what it started); an error
// is printed as "name: error" and the exit code is 1.
func BenchMain(name string, run func(ctx context.Context) error) {
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// WorkDir makes a benchmark's temporary directory; cleanup removes it,
// unless keep (a -keep flag: logs and data stay for a look), in which
// case its path is printed.
func WorkDir(prefix string, keep bool) (dir string, cleanup func(), err error) {
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	if keep {
		fmt.Println("keeping", dir)
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
