//go:build linux

package containerd

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Start cleans up what a previous run in the same Dir may have left, writes
// the configuration, creates the network namespace and starts containerd in
// it; it returns once the socket answers.
func Start(ctx context.Context, cfg Config) (*Daemon, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "containerd")
	if err := Cleanup(cfg, log); err != nil {
		return nil, fmt.Errorf("cleaning up a previous run: %w", err)
	}
	for _, d := range []string{cfg.Dir, filepath.Join(cfg.Dir, "net.d"), cfg.LogDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(cfg.Dir, "config.toml"), []byte(configTOML(cfg)), 0o600); err != nil {
		return nil, err
	}
	// The CNI conf must exist before containerd starts: its reload on
	// change is unreliable (recipe, pitfall P5).
	conf, err := cfg.network().ConfList(cfg)
	if err != nil {
		return nil, err
	}
	os.Remove(cfg.ConfListPath()) // a previous run's
	if conf != nil {
		if err := os.WriteFile(cfg.ConfListPath(), conf, 0o600); err != nil {
			return nil, err
		}
	}
	if cfg.NetNS == "" {
		if err := run("ip", "netns", "add", cfg.Name); err != nil {
			return nil, err
		}
		if err := run("ip", "-n", cfg.Name, "link", "set", "lo", "up"); err != nil {
			run("ip", "netns", "del", cfg.Name)
			return nil, err
		}
	}

	logf, err := os.OpenFile(filepath.Join(cfg.Dir, "containerd.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command("nsenter", "--net="+cfg.NetNSPath(), "containerd", "--config", filepath.Join(cfg.Dir, "config.toml"))
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group: a Ctrl-C or a test's SIGTERM to our group must
	// not kill containerd before the kubelet has stopped the pods.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		Cleanup(cfg, log)
		return nil, err
	}
	d := &Daemon{cfg: cfg, cmd: cmd, done: make(chan struct{}), log: log}
	go func() { cmd.Wait(); close(d.done) }()
	os.WriteFile(pidFile(cfg), []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)

	start := time.Now()
	for {
		if answers(ctx, cfg.Socket()) {
			break
		}
		select {
		case <-d.done:
			Cleanup(cfg, log)
			return nil, fmt.Errorf("containerd exited at start; see %s", filepath.Join(cfg.Dir, "containerd.log"))
		case <-ctx.Done():
			d.Stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Since(start) > time.Minute {
			d.Stop()
			return nil, fmt.Errorf("containerd's socket did not answer within a minute; see %s", filepath.Join(cfg.Dir, "containerd.log"))
		}
	}
	log.Info("containerd started", "pid", cmd.Process.Pid, "endpoint", cfg.Endpoint(), "netns", cfg.NetNSPath(),
		"podCIDR", cfg.PodCIDR, "took", time.Since(start).Round(time.Millisecond))
	return d, nil
}

// Stop ends containerd (SIGTERM, SIGKILL after 10 s) and removes
// everything it left. The pods should be gone already (the kubelet removes
// them through the CRI first); shims still running are killed by PID.
func (d *Daemon) Stop() error {
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(10 * time.Second):
		d.cmd.Process.Kill()
		<-d.done
	}
	err := Cleanup(d.cfg, d.log)
	if err == nil {
		d.log.Info("containerd stopped and cleaned up", "dir", d.cfg.Dir, "netns", d.cfg.Name)
	}
	return err
}

func pidFile(cfg Config) string { return filepath.Join(cfg.Dir, "containerd.pid") }

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
