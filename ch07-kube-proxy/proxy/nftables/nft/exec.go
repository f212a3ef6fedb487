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
}

// ErrNotFound says the table or object does not exist.
var ErrNotFound = errors.New("not found")

// IsNotFound reports whether err is (or wraps) ErrNotFound.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

type realNFT struct {
	family Family
	table  string
	path   string
}

// New returns an Interface on family/table that runs the nft binary in
// the calling thread's network namespace. It fails if nft is missing.
func New(family Family, table string) (Interface, error) {
	path, err := exec.LookPath("nft")
	if err != nil {
		return nil, fmt.Errorf("could not find nftables binary: %w", err)
	}
	return &realNFT{family: family, table: table, path: path}, nil
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

func (n *realNFT) Run(ctx context.Context, tx *Transaction) error {
	_, err := n.run(ctx, bytes.NewBufferString(tx.String()), "-f", "-")
	return err
}

// jsonResult is `nft --json` output: {"nftables": [{"metainfo": ...}, {"chain": {...}}, ...]}.
type jsonResult struct {
	Nftables []map[string]json.RawMessage `json:"nftables"`
}

func (n *realNFT) ListAll(ctx context.Context) (map[string][]string, error) {
	out, err := n.run(ctx, nil, "--json", "--terse", "list", "table", string(n.family), n.table)
	if err != nil {
		if IsNotFound(err) {
			return map[string][]string{}, nil
		}
		return nil, err
	}
	var res jsonResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		return nil, fmt.Errorf("could not parse nft output: %w", err)
	}
	all := map[string][]string{}
	for _, obj := range res.Nftables {
		for typ, raw := range obj {
			if typ != "chain" && typ != "set" && typ != "map" {
				continue
			}
			var named struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(raw, &named) == nil && named.Name != "" {
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
