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

// Main is what every chapter's main() shares: the "kubeconfig" subcommand,
// the apiserver's flags (a chapter registers its own on flag.CommandLine
// before calling Main), logging to stderr and DIR/logs/<component>.log, a
// context that ends on Ctrl-C or SIGTERM, and the exit code. run is the
// chapter itself.
func Main(opts *Options, component string, run func(ctx context.Context, log *slog.Logger) error) {
	// "kubeconfig --user alice --group dev": issue a kubeconfig and exit.
	if len(os.Args) > 1 && os.Args[1] == "kubeconfig" {
		os.Exit(KubeconfigCommand(os.Args[2:], os.Stdout, os.Stderr))
	}
	opts.AddFlags(flag.CommandLine)
	flag.Parse()

	log, closeLog, err := opts.Logger(component)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubik:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, log)
	stop()
	if err != nil {
		log.Error(component+" stopped", "err", err)
		closeLog.Close()
		os.Exit(1)
	}
	closeLog.Close()
}
