package app

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

// Config is a chapter's configuration: its flags, which include the
// apiserver's (every chapter's Config embeds the previous chapter's, and
// chapter 2's embeds Options).
type Config interface {
	AddFlags(fs *flag.FlagSet)
	APIServer() *Options
}

// Main is what every chapter's main() shares: the "kubeconfig" subcommand,
// the chapter's flags, the PID file DIR/<component>.pid (removed at exit),
// logging to stderr and DIR/logs/<component>.log, a context that ends on
// Ctrl-C or SIGTERM, and the exit code: 0 when the program was stopped
// that way, 1 when run failed. run is the chapter itself.
func Main(cfg Config, component string, run func(ctx context.Context, log *slog.Logger) error) {
	// "kubeconfig --user alice --group dev": issue a kubeconfig and exit.
	if len(os.Args) > 1 && os.Args[1] == "kubeconfig" {
		os.Exit(KubeconfigCommand(os.Args[2:], os.Stdout, os.Stderr))
	}
	cfg.AddFlags(flag.CommandLine)
	flag.Parse()
	os.Exit(runMain(cfg.APIServer(), component, run))
}

func runMain(o *Options, component string, run func(ctx context.Context, log *slog.Logger) error) int {
	path, stale, err := writePIDFile(o.DataDir, component)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubik:", err)
		return 1
	}
	pidFile = path
	defer os.Remove(path)

	log, closeLog, err := o.Logger(component)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubik:", err)
		return 1
	}
	defer closeLog.Close()
	if stale != nil {
		log.Warn("the previous run in this data dir did not exit cleanly (kill -9, a crash?); if it ran nodes (chapters 5-7), `make clean-nodes` removes what they left",
			"pidFile", stale.file, "pid", stale.pid)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, log); err != nil {
		log.Error(component+" stopped", "err", err)
		return 1
	}
	return 0
}
