package nft

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/google/nftables"
)

// Interface runs transactions on one table and lists its contents.
type Interface interface {
	NewTransaction() *Transaction
	// Run applies tx atomically.
	Run(ctx context.Context, tx *Transaction) error
	// ListAll returns the names of the table's objects by type
	// ("chain", "set", "map"). A missing table is not an error.
	ListAll(ctx context.Context) (map[string][]string, error)
	// ListElements returns the elements of a "set" or "map".
	ListElements(ctx context.Context, objectType, name string) ([]*Element, error)
	// DeleteChains deletes the named chains (empty and unreferenced) in
	// one transaction.
	DeleteChains(ctx context.Context, names []string) error
}

// ErrNotFound says the table or object does not exist.
var ErrNotFound = errors.New("not found")

// IsNotFound reports whether err is (or wraps) ErrNotFound.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

type realNFT struct {
	family Family
	table  string
	path   string

	mu sync.Mutex
	// types holds the key types of the sets and maps transactions run
	// here have added, for encoding their elements over netlink.
	types setTypes
	// overNetlink and byNFT count the transactions Run sent each way.
	overNetlink, byNFT int
}

// New returns an Interface on family/table that runs the nft binary in
// the calling thread's network namespace. It fails if nft is missing.
func New(family Family, table string) (Interface, error) {
	path, err := exec.LookPath("nft")
	if err != nil {
		return nil, fmt.Errorf("could not find nftables binary: %w", err)
	}
	return &realNFT{family: family, table: table, path: path, types: setTypes{}}, nil
}

func (n *realNFT) NewTransaction() *Transaction { return NewTransaction(n.family, n.table) }

func (n *realNFT) run(ctx context.Context, stdin *bytes.Buffer, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, n.path, args...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "No such file or directory") {
			return "", fmt.Errorf("%w: %s", ErrNotFound, msg)
		}
		return "", fmt.Errorf("nft %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return stdout.String(), nil
}

// Run sends tx over netlink as one batch when every operation can be
// encoded there (netlink.go: the operations of partial syncs), and
// otherwise runs `nft -f -`. Either is one atomic transaction.
func (n *realNFT) Run(ctx context.Context, tx *Transaction) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	err := sendBatch(func(conn *nftables.Conn) error { return netlinkBatch(conn, n.table, n.types, tx) })
	switch {
	case err == nil:
		n.types.record(tx)
		n.overNetlink++
		return nil
	case !errors.Is(err, errUnsupported):
		return fmt.Errorf("netlink transaction of %d operations: %w", tx.NumOperations(), err)
	}
	n.byNFT++
	if _, err := n.run(ctx, bytes.NewBufferString(tx.String()), "-f", "-"); err != nil {
		return err
	}
	n.types.record(tx)
	return nil
}

// Transactions returns how many transactions Run sent over netlink and
// how many it gave to `nft -f`.
func (n *realNFT) Transactions() (overNetlink, byNFT int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.overNetlink, n.byNFT
}

// DeleteChains sends the deletions over netlink itself
// (github.com/google/nftables), in the calling thread's network namespace.
// `nft -f` would first read every chain of the table into its cache, to
// check commands it does not need to check here: at 5000 Services that is
// 2 MB from the kernel and most of a partial sync's time, and a sync that
// deletes the chains left stale by an earlier one would pay it twice.
func (n *realNFT) DeleteChains(_ context.Context, names []string) error {
	if n.family != IPv4Family {
		return fmt.Errorf("DeleteChains: family %q is not supported", n.family)
	}
	conn, err := nftables.New()
	if err != nil {
		return err
	}
	table := &nftables.Table{Name: n.table, Family: nftables.TableFamilyIPv4}
	for _, name := range names {
		conn.DelChain(&nftables.Chain{Name: name, Table: table})
	}
	if err := conn.Flush(); err != nil {
		return fmt.Errorf("deleting %d chains: %w", len(names), err)
	}
	return nil
}

// jsonResult is `nft --json` output: {"nftables": [{"metainfo": ...}, {"chain": {...}}, ...]}.
type jsonResult struct {
	Nftables []map[string]json.RawMessage `json:"nftables"`
}

// ListAll lists the chains, sets and maps of the family (`nft --json
// list chains ip`, `--terse list sets ip`, `--terse list maps ip`) and
// keeps those of our table. knftables lists the whole table instead
// (`--terse list table`), rules included: at 5000 Services that is 12 MB
// of JSON and seconds of nft's time, where the three listings here take a
// tenth of it.
func (n *realNFT) ListAll(ctx context.Context) (map[string][]string, error) {
	all := map[string][]string{}
	for _, typ := range []string{"chain", "set", "map"} {
		args := []string{"--json", "list", typ + "s", string(n.family)}
		if typ != "chain" {
			// Without the elements.
			args = []string{"--json", "--terse", "list", typ + "s", string(n.family)}
		}
		out, err := n.run(ctx, nil, args...)
		if err != nil {
			return nil, err
		}
		var res jsonResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			return nil, fmt.Errorf("could not parse nft output: %w", err)
		}
		for _, obj := range res.Nftables {
			raw, ok := obj[typ]
			if !ok {
				continue
			}
			var named struct {
				Name  string `json:"name"`
				Table string `json:"table"`
			}
			if json.Unmarshal(raw, &named) == nil && named.Name != "" && named.Table == n.table {
				all[typ] = append(all[typ], named.Name)
			}
		}
	}
	return all, nil
}

func (n *realNFT) ListElements(ctx context.Context, objectType, name string) ([]*Element, error) {
	out, err := n.run(ctx, nil, "--json", "list", objectType, string(n.family), n.table, name)
	if err != nil {
		return nil, err
	}
	var res jsonResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		return nil, fmt.Errorf("could not parse nft output: %w", err)
	}
	var elements []*Element
	for _, obj := range res.Nftables {
		raw, ok := obj[objectType]
		if !ok {
			continue
		}
		var body struct {
			Elem []json.RawMessage `json:"elem"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			return nil, fmt.Errorf("could not parse nft %s: %w", objectType, err)
		}
		for _, e := range body.Elem {
			el, err := parseJSONElement(e, objectType == "map")
			if err != nil {
				return nil, err
			}
			if objectType == "map" {
				el.Map = name
			} else {
				el.Set = name
			}
			elements = append(elements, el)
		}
	}
	return elements, nil
}

// parseJSONElement decodes one element of `nft --json list`: a key, or
// [key, value] for a map; a key may be {"elem": {"val": key, "comment": c}}
// and a concatenation {"concat": [...]}; a verdict value {"goto": {"target": c}}.
func parseJSONElement(raw json.RawMessage, isMap bool) (*Element, error) {
	el := &Element{}
	keyRaw := raw
	if isMap {
		var pair []json.RawMessage
		if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("unexpected map element %s", raw)
		}
		keyRaw = pair[0]
		v, err := jsonValue(pair[1])
		if err != nil {
			return nil, err
		}
		el.Value = v
	}
	var wrapped struct {
		Elem *struct {
			Val     json.RawMessage `json:"val"`
			Comment *string         `json:"comment"`
		} `json:"elem"`
	}
	if json.Unmarshal(keyRaw, &wrapped) == nil && wrapped.Elem != nil {
		keyRaw = wrapped.Elem.Val
		el.Comment = wrapped.Elem.Comment
	}
	k, err := jsonValue(keyRaw)
	if err != nil {
		return nil, err
	}
	el.Key = k
	return el, nil
}

// jsonValue turns a JSON key or value into the words nft would print.
func jsonValue(raw json.RawMessage) ([]string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}, nil
	}
	var num json.Number
	if json.Unmarshal(raw, &num) == nil {
		return []string{num.String()}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("unexpected element %s", raw)
	}
	if c, ok := obj["concat"]; ok {
		var parts []json.RawMessage
		if err := json.Unmarshal(c, &parts); err != nil {
			return nil, err
		}
		var out []string
		for _, p := range parts {
			v, err := jsonValue(p)
			if err != nil {
				return nil, err
			}
			out = append(out, v...)
		}
		return out, nil
	}
	for _, verdict := range []string{"goto", "jump"} {
		if v, ok := obj[verdict]; ok {
			var t struct {
				Target string `json:"target"`
			}
			if err := json.Unmarshal(v, &t); err != nil {
				return nil, err
			}
			return []string{verdict + " " + t.Target}, nil
		}
	}
	for _, verdict := range []string{"drop", "accept", "return", "continue"} {
		if _, ok := obj[verdict]; ok {
			return []string{verdict}, nil
		}
	}
	if p, ok := obj["prefix"]; ok {
		var pf struct {
			Addr string `json:"addr"`
			Len  int    `json:"len"`
		}
		if err := json.Unmarshal(p, &pf); err == nil {
			return []string{pf.Addr + "/" + strconv.Itoa(pf.Len)}, nil
		}
	}
	return nil, fmt.Errorf("unexpected element %s", raw)
}
