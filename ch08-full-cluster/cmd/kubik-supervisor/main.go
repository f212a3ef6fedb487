// Command kubik-supervisor is the init of chapter 8's network-namespace
// machines (package supervisor): `run` boots a machine's units, the other
// commands are what systemctl and journalctl are on a VM.
//
//	kubik-supervisor --root DIR run [--hostname NAME]   boot the units of DIR/etc/systemd/system
//	kubik-supervisor status [UNIT...]                    systemctl status [UNIT...]
//	kubik-supervisor start|stop|restart UNIT...          systemctl start|stop|restart UNIT...
//	kubik-supervisor kill [--signal SIG] UNIT...         systemctl kill [-s SIG] UNIT...
//	kubik-supervisor logs [-f] [-n N] UNIT               journalctl -u UNIT [-f] [-n N]
//
// --root (default $KUBIK_ROOT, else /) is the machine's root directory;
// `ch08-full-cluster shell MACHINE` opens a shell on a machine with it set.
// --hostname gives the machine its name; the supervisor must then have a
// UTS namespace of its own, other than its parent's (the cluster starts it
// in one), and refuses otherwise rather than rename the host.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"kubik/ch01-apiserver/app"
	"kubik/ch08-full-cluster/supervisor"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage: kubik-supervisor [--root DIR] COMMAND
commands:
  run [--hostname NAME] [--log-level LEVEL]   boot the machine's units and supervise them until SIGTERM
  status [UNIT...]                            every unit, or each UNIT as systemctl status shows it
  start|stop|restart UNIT...                  run the job and wait for it
  kill [--signal SIG] UNIT...                 signal the unit's processes (default SIGTERM)
  logs [-f] [-n N] UNIT                       the unit's log (-f: follow it, as journalctl -f)
`

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kubik-supervisor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	root := os.Getenv("KUBIK_ROOT")
	if root == "" {
		root = "/"
	}
	fs.StringVar(&root, "root", root, "the machine's root directory (default $KUBIK_ROOT, else /)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	cmd, rest := fs.Arg(0), fs.Args()[1:]
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c := supervisor.NewClient(root)
	fail := func(err error) int {
		fmt.Fprintln(stderr, "kubik-supervisor:", err)
		return 1
	}
	switch cmd {
	case "run":
		return runDaemon(ctx, root, rest, stderr)
	case "status":
		if len(rest) == 0 {
			units, err := c.List(ctx)
			if err != nil {
				return fail(err)
			}
			supervisor.WriteList(stdout, units)
			return 0
		}
		code := 0
		for i, u := range rest {
			st, err := c.Status(ctx, u)
			if err != nil {
				fmt.Fprintln(stderr, err)
				code = 4 // systemctl's "no such unit"
				continue
			}
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			supervisor.WriteStatus(stdout, st, 10)
			if !st.Running() && code == 0 {
				code = 3 // systemctl's "not active"
			}
		}
		return code
	case "start", "stop", "restart":
		if len(rest) == 0 {
			return fail(fmt.Errorf("%s: which unit?", cmd))
		}
		for _, u := range rest {
			var err error
			switch cmd {
			case "start":
				err = c.Start(ctx, u)
			case "stop":
				err = c.Stop(ctx, u)
			default:
				err = c.Restart(ctx, u)
			}
			if err != nil {
				return fail(err)
			}
		}
		return 0
	case "kill":
		kfs := flag.NewFlagSet("kill", flag.ContinueOnError)
		kfs.SetOutput(stderr)
		sig := kfs.String("signal", "SIGTERM", "the signal")
		kfs.StringVar(sig, "s", "SIGTERM", "the signal (short for --signal)")
		if err := kfs.Parse(rest); err != nil {
			return 2
		}
		if _, err := supervisor.ParseSignal(*sig); err != nil {
			return fail(err)
		}
		for _, u := range kfs.Args() {
			if err := c.Kill(ctx, u, *sig); err != nil {
				return fail(err)
			}
		}
		return 0
	case "logs":
		lfs := flag.NewFlagSet("logs", flag.ContinueOnError)
		lfs.SetOutput(stderr)
		follow := lfs.Bool("f", false, "follow the log")
		n := lfs.Int("n", -1, "show only the last N lines (default: all; with -f, 10)")
		if err := lfs.Parse(rest); err != nil {
			return 2
		}
		if lfs.NArg() != 1 {
			return fail(errors.New("logs: one unit"))
		}
		path := supervisor.Config{Root: root}.LogFile(supervisor.UnitName(lfs.Arg(0)))
		if *follow {
			if *n < 0 {
				*n = 10
			}
			return exit(supervisor.Follow(ctx, stdout, path, *n), stderr)
		}
		if *n < 0 {
			f, err := os.Open(path)
			if err != nil {
				return fail(err)
			}
			defer f.Close()
			_, err = io.Copy(stdout, f)
			return exit(err, stderr)
		}
		lines, err := supervisor.Tail(path, *n)
		for _, l := range lines {
			fmt.Fprintln(stdout, l)
		}
		return exit(err, stderr)
	default:
		fs.Usage()
		return 2
	}
}

func exit(err error, stderr io.Writer) int {
	if err != nil {
		fmt.Fprintln(stderr, "kubik-supervisor:", err)
		return 1
	}
	return 0
}

// runDaemon is `run`: the machine's init until SIGTERM.
func runDaemon(ctx context.Context, root string, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hostname := fs.String("hostname", "", "the machine's hostname (needs a UTS namespace of its own)")
	level := fs.String("log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log, err := app.NewLogger(*level, stderr)
	if err != nil {
		return exit(err, stderr)
	}
	if *hostname != "" {
		if err := setHostname(*hostname); err != nil {
			return exit(err, stderr)
		}
	}
	if err := supervisor.Run(ctx, supervisor.Config{Root: root, Logger: log}); err != nil {
		return exit(err, stderr)
	}
	return 0
}

// setHostname names the machine, only in a UTS namespace of its own (not
// its parent's): never the host's name.
func setHostname(name string) error {
	self, err1 := os.Readlink("/proc/self/ns/uts")
	parent, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/uts", os.Getppid()))
	if err1 != nil || err2 != nil {
		return fmt.Errorf("--hostname: cannot compare UTS namespaces: %v %v", err1, err2)
	}
	if self == parent {
		return errors.New("--hostname: this process shares its parent's UTS namespace; start it in one of its own (unshare --uts), or leave --hostname out")
	}
	return syscall.Sethostname([]byte(name))
}
