package iptables

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	goiptables "github.com/coreos/go-iptables/iptables"
)

// Table and Chain are iptables names.
type (
	Table string
	Chain string
)

// The tables and built-in chains kube-proxy uses.
const (
	TableNAT    Table = "nat"
	TableFilter Table = "filter"
	TableMangle Table = "mangle"

	ChainPostrouting Chain = "POSTROUTING"
	ChainPrerouting  Chain = "PREROUTING"
	ChainOutput      Chain = "OUTPUT"
	ChainInput       Chain = "INPUT"
	ChainForward     Chain = "FORWARD"
)

// Interface is what the proxier needs from iptables: the few rules in the
// built-in chains are ensured one by one; everything else is written in
// one iptables-restore transaction. Upstream: pkg/util/iptables.Interface.
type Interface interface {
	// EnsureChain creates chain unless it exists; it reports whether it existed.
	EnsureChain(table Table, chain Chain) (bool, error)
	// EnsureRule inserts the rule at the top of chain unless it is there;
	// it reports whether it existed.
	EnsureRule(table Table, chain Chain, args ...string) (bool, error)
	// ChainExists reports whether chain exists in table.
	ChainExists(table Table, chain Chain) (bool, error)
	// DeleteChain deletes an (empty) chain.
	DeleteChain(table Table, chain Chain) error
	// SaveInto appends the iptables-save output of table to buf.
	SaveInto(table Table, buf *bytes.Buffer) error
	// RestoreAll feeds data to iptables-restore --noflush --counters:
	// chains named in it are flushed (or created), others are left alone.
	RestoreAll(data []byte) error
	// HasRandomFully: MASQUERADE supports --random-fully.
	HasRandomFully() bool
	IsIPv6() bool
}

// iptablesRunner is the real Interface: go-iptables for the single rules, the
// iptables-save and iptables-restore binaries for the bulk. All of them
// act on the calling thread's network namespace.
type iptablesRunner struct {
	ipt *goiptables.IPTables
}

// New returns an IPv4 Interface backed by the system's iptables binaries.
func New() (Interface, error) {
	ipt, err := goiptables.NewWithProtocol(goiptables.ProtocolIPv4)
	if err != nil {
		return nil, err
	}
	return &iptablesRunner{ipt: ipt}, nil
}

func (r *iptablesRunner) EnsureChain(table Table, chain Chain) (bool, error) {
	// As upstream: create the chain and take exit status 1 ("Chain already
	// exists") for an existing one. Asking first would make iptables read
	// the chain's rules: tens of thousands in KUBE-SERVICES.
	err := r.ipt.NewChain(string(table), string(chain))
	if err == nil {
		return false, nil
	}
	var e *goiptables.Error
	if errors.As(err, &e) && e.ExitStatus() == 1 {
		return true, nil
	}
	return false, fmt.Errorf("error creating chain %q: %w", chain, err)
}

func (r *iptablesRunner) EnsureRule(table Table, chain Chain, args ...string) (bool, error) {
	exists, err := r.ipt.Exists(string(table), string(chain), args...)
	if err != nil {
		return false, err
	}
	if exists {
		return true, nil
	}
	if err := r.ipt.Insert(string(table), string(chain), 1, args...); err != nil {
		return false, fmt.Errorf("error appending rule: %w", err)
	}
	return false, nil
}

func (r *iptablesRunner) ChainExists(table Table, chain Chain) (bool, error) {
	return r.ipt.ChainExists(string(table), string(chain))
}

func (r *iptablesRunner) DeleteChain(table Table, chain Chain) error {
	return r.ipt.DeleteChain(string(table), string(chain))
}

func (r *iptablesRunner) HasRandomFully() bool { return r.ipt.HasRandomFully() }
func (r *iptablesRunner) IsIPv6() bool         { return false }

// commandTimeout bounds one iptables-save or iptables-restore run.
const commandTimeout = 5 * time.Minute

func (r *iptablesRunner) SaveInto(table Table, buf *bytes.Buffer) error {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "iptables-save", "-t", string(table))
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = buf, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("iptables-save -t %s: %w: %s", table, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

func (r *iptablesRunner) RestoreAll(data []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	// -w: wait up to 5 s for the xtables lock; the same arguments as
	// upstream's (iptables-restore -w 5 --noflush --counters).
	cmd := exec.CommandContext(ctx, "iptables-restore", "-w", "5", "--noflush", "--counters")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("iptables-restore: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// GetChainsFromTable returns the chain names declared (":NAME ...") in
// iptables-save output.
func GetChainsFromTable(save []byte) map[Chain]bool {
	chains := map[Chain]bool{}
	for len(save) > 0 {
		line := save
		if i := bytes.IndexByte(save, '\n'); i >= 0 {
			line, save = save[:i], save[i+1:]
		} else {
			save = nil
		}
		if len(line) < 2 || line[0] != ':' {
			continue
		}
		if end := bytes.IndexByte(line, ' '); end > 1 {
			chains[Chain(line[1:end])] = true
		}
	}
	return chains
}

// MakeChainLine is an iptables-restore chain declaration; with --noflush
// it creates the chain or flushes it.
func MakeChainLine(chain Chain) string { return ":" + string(chain) + " - [0:0]" }
