package supervisor

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Run is the supervisor's life, as init's on a machine: it loads the
// units, serves the control socket, boots the enabled units, and when ctx
// ends stops them all and returns.
func Run(ctx context.Context, cfg Config) error {
	s, err := New(cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := os.MkdirAll(cfg.RunDir(), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(cfg.PIDFile(), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return err
	}
	defer os.Remove(cfg.PIDFile())
	sctx, stopServing := context.WithCancel(context.WithoutCancel(ctx))
	served := make(chan error, 1)
	go func() { served <- s.Serve(sctx) }()
	s.Boot()
	select {
	case <-ctx.Done():
	case err = <-served: // the socket failed: nobody could stop the units
		served <- err
	}
	s.Shutdown()
	stopServing()
	return <-served
}

// Follow writes the last n lines of the file at path, then what is
// appended to it, until ctx ends (`journalctl -f`, `tail -F`: a file that
// is replaced or truncated is read again from its start).
func Follow(ctx context.Context, w io.Writer, path string, n int) error {
	lines, err := Tail(path, n)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if len(lines) > 0 {
		io.WriteString(w, strings.Join(lines, "\n")+"\n")
	}
	var off int64
	if fi, err := os.Stat(path); err == nil {
		off = fi.Size()
	}
	buf := make([]byte, 64<<10)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		if fi, err := f.Stat(); err == nil && fi.Size() < off {
			off = 0 // truncated or replaced
		}
		for {
			k, err := f.ReadAt(buf, off)
			if k > 0 {
				w.Write(buf[:k])
				off += int64(k)
			}
			if err != nil || k == 0 {
				break
			}
		}
		f.Close()
	}
}
