// Package serializer turns request bodies into our typed objects the way the
// kube-apiserver's JSON and YAML serializers do: YAML is converted to JSON
// first, then JSON is decoded strictly, collecting unknown and duplicate
// fields with their full paths.
//
// Upstream: k8s.io/apimachinery/pkg/runtime/serializer/json, sigs.k8s.io/json
// (UnmarshalStrict) and sigs.k8s.io/yaml (YAMLToJSON).
package serializer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ToJSON returns the body as JSON. JSON bodies pass through untouched;
// application/yaml bodies (and application/apply-patch+yaml, which kubectl
// fills with JSON, itself valid YAML) are converted like sigs.k8s.io/yaml's
// YAMLToJSON: only the first document counts, integers stay integers,
// non-string keys become strings and a repeated key keeps its last value.
//
// A repeated key is what upstream reports as a strict decoding error
// (YAMLToJSONStrict fails with go-yaml v2's wording). ToJSON then returns the
// usable JSON together with a StrictErrors error, so the caller can treat it
// like the strict errors of DecodeStrict (fail, warn or ignore).
func ToJSON(body []byte, contentType string) ([]byte, error) {
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mediaType = strings.TrimSpace(strings.SplitN(contentType, ";", 2)[0])
	}
	switch mediaType {
	case "application/yaml", "application/apply-patch+yaml", "text/yaml", "application/x-yaml":
	default:
		return body, nil
	}
	// A JSON object is valid YAML; skip the YAML parser (and its different
	// number handling) when the body already is JSON.
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		return body, nil
	}
	return YAMLToJSON(body)
}

// YAMLToJSON converts the first YAML document of y to JSON. See ToJSON.
func YAMLToJSON(y []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(y, &doc); err != nil {
		return nil, err
	}
	c := &yamlConverter{maxAliasedBytes: max(minAliasedBytes, aliasedBytesPerInputByte*len(y))}
	var obj any
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		var err error
		if obj, err = c.convert(doc.Content[0], 0); err != nil {
			return nil, err
		}
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	if len(c.duplicates) > 0 {
		return out, StrictErrors{"yaml: unmarshal errors:\n  " + strings.Join(c.duplicates, "\n  ")}
	}
	return out, nil
}

// yamlConverter walks a yaml.v3 node tree and builds JSON-able values with
// the YAML 1.1 resolution rules of go-yaml v2, which upstream still uses.
//
// yaml.v3 parses aliases into references to the anchored node without
// expanding them; expanding is this converter's job, so its guard against
// "billion laughs" documents (CVE-2019-11253) is this converter's job too.
// It counts as go-yaml v2 does (decodeCount, aliasCount, the allowed alias
// ratio) and fails with go-yaml's message, and it also bounds the bytes of
// scalars copied through aliases, which the ratio alone does not: one long
// anchored string aliased a hundred times stays under the ratio.
type yamlConverter struct {
	duplicates []string

	decodeCount     int // nodes converted
	aliasCount      int // of them, nodes converted through an alias
	aliasDepth      int // how many aliases the current node is reached through
	aliasedBytes    int // scalar bytes converted through an alias
	maxAliasedBytes int
}

// maxYAMLDepth bounds recursion through nested nodes and aliases.
const maxYAMLDepth = 10000

// The alias expansion budget: scalar bytes copied through aliases may reach
// aliasedBytesPerInputByte times the document's size, and at least
// minAliasedBytes.
const (
	aliasedBytesPerInputByte = 10
	minAliasedBytes          = 1 << 20
)

// errExcessiveAliasing is go-yaml's error for an alias bomb; upstream's
// apiserver answers it with 400 Bad Request.
var errExcessiveAliasing = errors.New("yaml: document contains excessive aliasing")

// allowedAliasRatio is go-yaml v2's: up to 400,000 decode operations 99 %
// of the nodes may come from aliases, from 4,000,000 on only 10 %, scaled
// linearly in between.
func allowedAliasRatio(decodeCount int) float64 {
	const low, high = 400000, 4000000
	switch {
	case decodeCount <= low:
		return 0.99
	case decodeCount >= high:
		return 0.10
	default:
		return 0.99 - 0.89*(float64(decodeCount-low)/float64(high-low))
	}
}

// count charges one node to the budget, as go-yaml v2's decoder does at
// every node it decodes.
func (c *yamlConverter) count() error {
	c.decodeCount++
	if c.aliasDepth > 0 {
		c.aliasCount++
	}
	if c.aliasCount > 100 && c.decodeCount > 1000 && float64(c.aliasCount)/float64(c.decodeCount) > allowedAliasRatio(c.decodeCount) {
		return errExcessiveAliasing
	}
	return nil
}

// throughAlias follows alias nodes to the anchored node; entered is how many
// it followed (the caller adds them to aliasDepth while it converts the node).
func throughAlias(n *yaml.Node) (target *yaml.Node, entered int) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n, entered = n.Alias, entered+1
		if entered > maxYAMLDepth {
			break
		}
	}
	return n, entered
}

func (c *yamlConverter) convert(n *yaml.Node, depth int) (any, error) {
	if depth > maxYAMLDepth {
		return nil, fmt.Errorf("yaml: exceeded max depth of %d", maxYAMLDepth)
	}
	if err := c.count(); err != nil {
		return nil, err
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.convert(n.Content[0], depth+1)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, nil
		}
		c.aliasDepth++
		defer func() { c.aliasDepth-- }()
		return c.convert(n.Alias, depth+1)
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, err := c.convert(item, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.MappingNode:
		m := map[string]any{}
		if err := c.mapping(n, m, depth, true); err != nil {
			return nil, err
		}
		return m, nil
	case yaml.ScalarNode:
		if c.aliasDepth > 0 {
			if c.aliasedBytes += len(n.Value); c.aliasedBytes > c.maxAliasedBytes {
				return nil, errExcessiveAliasing
			}
		}
		return resolveScalar(n)
	}
	return nil, nil
}

// mapping fills m from the key/value pairs of n. Merge keys ("<<") add the
// keys of the referenced mappings that m does not set itself.
func (c *yamlConverter) mapping(n *yaml.Node, m map[string]any, depth int, reportDuplicates bool) error {
	seen := map[string]bool{}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Kind == yaml.ScalarNode && kn.Value == "<<" && kn.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
			merges = append(merges, vn)
			continue
		}
		kv, err := c.convert(kn, depth+1)
		if err != nil {
			return err
		}
		key, err := jsonKey(kv)
		if err != nil {
			return err
		}
		if seen[key] && reportDuplicates {
			c.duplicates = append(c.duplicates, fmt.Sprintf("line %d: key %#v already set in map", kn.Line, kv))
		}
		seen[key] = true
		v, err := c.convert(vn, depth+1)
		if err != nil {
			return err
		}
		m[key] = v
	}
	for _, mn := range merges {
		if err := c.merge(mn, m, seen, depth); err != nil {
			return err
		}
	}
	return nil
}

// merge adds to m the keys of a merge key's value (a mapping or a sequence
// of mappings, usually aliases) that m does not set itself. What it copies
// through aliases is charged to the alias budget like any alias.
func (c *yamlConverter) merge(mn *yaml.Node, m map[string]any, seen map[string]bool, depth int) error {
	if err := c.count(); err != nil {
		return err
	}
	mn, entered := throughAlias(mn)
	c.aliasDepth += entered
	defer func() { c.aliasDepth -= entered }()
	sources := []*yaml.Node{mn}
	if mn.Kind == yaml.SequenceNode {
		sources = mn.Content
	}
	for _, src := range sources {
		src, entered := throughAlias(src)
		if src.Kind != yaml.MappingNode {
			return fmt.Errorf("yaml: map merge requires map or sequence of maps as the value")
		}
		merged := map[string]any{}
		c.aliasDepth += entered
		err := c.mapping(src, merged, depth+1, false)
		c.aliasDepth -= entered
		if err != nil {
			return err
		}
		for k, v := range merged {
			if !seen[k] {
				m[k] = v
				seen[k] = true
			}
		}
	}
	return nil
}

// jsonKey turns a YAML key into a JSON object key like sigs.k8s.io/yaml.
func jsonKey(k any) (string, error) {
	switch k := k.(type) {
	case string:
		return k, nil
	case int64:
		return strconv.FormatInt(k, 10), nil
	case uint64:
		return strconv.FormatUint(k, 10), nil
	case float64:
		s := strconv.FormatFloat(k, 'g', -1, 32)
		switch s {
		case "+Inf":
			s = ".inf"
		case "-Inf":
			s = "-.inf"
		case "NaN":
			s = ".nan"
		}
		return s, nil
	case bool:
		if k {
			return "true", nil
		}
		return "false", nil
	}
	return "", fmt.Errorf("unsupported map key of type: %T, key: %#v", k, k)
}

// yamlStyleFloat is go-yaml v2's test for a plain scalar that is a float.
var yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// plainValues are the YAML 1.1 words go-yaml v2 resolves specially.
var plainValues = map[string]any{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"true": true, "True": true, "TRUE": true, "on": true, "On": true, "ON": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false,
	"false": false, "False": false, "FALSE": false, "off": false, "Off": false, "OFF": false,
	"": nil, "~": nil, "null": nil, "Null": nil, "NULL": nil,
	".nan": math.NaN(), ".NaN": math.NaN(), ".NAN": math.NaN(),
	".inf": math.Inf(1), ".Inf": math.Inf(1), ".INF": math.Inf(1),
	"+.inf": math.Inf(1), "+.Inf": math.Inf(1), "+.INF": math.Inf(1),
	"-.inf": math.Inf(-1), "-.Inf": math.Inf(-1), "-.INF": math.Inf(-1),
}

// resolveScalar gives a scalar node its Go value. Quoted scalars and scalars
// tagged !!str are strings; plain ones follow go-yaml v2 (yes/no are booleans,
// timestamps stay strings).
func resolveScalar(n *yaml.Node) (any, error) {
	s := n.Value
	tag := ""
	if n.Style&yaml.TaggedStyle != 0 {
		tag = n.ShortTag() // only an explicit tag counts, not yaml.v3's YAML 1.2 guess
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 && (tag == "" || tag == "!!str" || tag == "!") {
		return s, nil
	}
	switch tag {
	case "!!str", "!!binary", "!!timestamp":
		return s, nil
	case "!!null":
		return nil, nil
	}
	if v, ok := plainValues[s]; ok {
		switch tag {
		case "", "!!bool", "!!null", "!!float":
			return v, nil
		}
	}
	plain := strings.ReplaceAll(s, "_", "")
	if i, err := strconv.ParseInt(plain, 0, 64); err == nil && tag != "!!float" {
		return i, nil
	}
	if u, err := strconv.ParseUint(plain, 0, 64); err == nil && tag != "!!float" {
		return u, nil
	}
	if yamlStyleFloat.MatchString(plain) {
		if f, err := strconv.ParseFloat(plain, 64); err == nil {
			return f, nil
		}
	}
	if strings.HasPrefix(plain, "0b") {
		if i, err := strconv.ParseInt(plain[2:], 2, 64); err == nil {
			return i, nil
		}
	} else if strings.HasPrefix(plain, "-0b") {
		if i, err := strconv.ParseInt("-"+plain[3:], 2, 64); err == nil {
			return i, nil
		}
	}
	switch tag {
	case "!!int", "!!float", "!!bool":
		return nil, fmt.Errorf("yaml: cannot decode !%s `%s` as a %s", tag, s, strings.TrimPrefix(tag, "!!"))
	}
	return s, nil
}
