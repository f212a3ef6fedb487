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
// the chapter's flags, logging to stderr and DIR/logs/<component>.log, a
// context that ends on Ctrl-C or SIGTERM, and the exit code. run is the
// chapter itself.
func Main(cfg Config, component string, run func(ctx context.Context, log *slog.Logger) error) {
	// "kubeconfig --user alice --group dev": issue a kubeconfig and exit.
	if len(os.Args) > 1 && os.Args[1] == "kubeconfig" {
		os.Exit(KubeconfigCommand(os.Args[2:], os.Stdout, os.Stderr))
	}
	cfg.AddFlags(flag.CommandLine)
	flag.Parse()

	log, closeLog, err := cfg.APIServer().Logger(component)
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
