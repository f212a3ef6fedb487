package serializer

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestToJSON(t *testing.T) {
	tests := []struct {
		name, ct, in, want, wantStrict string
	}{
		{name: "json passes", ct: "application/json", in: `{"a": 1}`, want: `{"a": 1}`},
		{name: "apply patch that is json", ct: "application/apply-patch+yaml", in: `{"kind":"ConfigMap"}`, want: `{"kind":"ConfigMap"}`},
		{
			name: "pod yaml",
			ct:   "application/yaml",
			in:   "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  containers:\n  - name: c\n    image: nginx:1.27\n    ports:\n    - containerPort: 80\n",
			want: `{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"app":"web"},"name":"web"},"spec":{"containers":[{"image":"nginx:1.27","name":"c","ports":[{"containerPort":80}]}]}}`,
		},
		{
			name: "yaml 1.1 scalars and keys",
			ct:   "application/yaml; charset=utf-8",
			in:   "a: yes\nb: 'yes'\nc: 1.5\nd: 0x10\ne: ~\nf: 2024-01-01\n1: one\ntrue: t\ng: 1_000\nh: 12345678901234\n",
			want: `{"1":"one","a":true,"b":"yes","c":1.5,"d":16,"e":null,"f":"2024-01-01","g":1000,"h":12345678901234,"true":"t"}`,
		},
		{
			name: "anchors and merge keys",
			ct:   "application/yaml",
			in:   "base: &b {p: 1, q: 2}\nderived:\n  <<: *b\n  q: 3\n",
			want: `{"base":{"p":1,"q":2},"derived":{"p":1,"q":3}}`,
		},
		{
			name:       "duplicate keys",
			ct:         "application/yaml",
			in:         "metadata:\n  name: a\n  name: b\n",
			want:       `{"metadata":{"name":"b"}}`,
			wantStrict: "strict decoding error: yaml: unmarshal errors:\n  line 3: key \"name\" already set in map",
		},
		{name: "first document only", ct: "application/yaml", in: "a: 1\n---\nb: 2\n", want: `{"a":1}`},
		{name: "empty", ct: "application/yaml", in: "", want: `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ToJSON([]byte(tt.in), tt.ct)
			var strict StrictErrors
			if errors.As(err, &strict) {
				if strict.Error() != tt.wantStrict {
					t.Errorf("strict = %q, want %q", strict.Error(), tt.wantStrict)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if tt.wantStrict != "" {
				t.Errorf("no strict error, want %q", tt.wantStrict)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestToJSONSyntaxError(t *testing.T) {
	if _, err := ToJSON([]byte("a: [1\n"), "application/yaml"); err == nil {
		t.Fatal("no error for broken YAML")
	}
}

func FuzzToJSON(f *testing.F) {
	f.Add([]byte("a: 1\nb: [x, {c: d}]\n"))
	f.Add([]byte("x: &a [*a]\n"))
	f.Add([]byte("<<: {a: 1}\n? [1, 2]\n: v\n"))
	f.Add([]byte(`{"a":1}`))
	for _, shape := range []string{"sequence", "mapping", "merge"} {
		f.Add(laughs(shape, 9))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ToJSON(data, "application/yaml")
	})
}

// laughs builds a "billion laughs" document: each level's anchor is a
// collection of ten aliases of the level below, so the last level expands to
// 10^levels nodes. shape picks the collection: a sequence, a mapping, or
// mappings merged with "<<".
func laughs(shape string, levels int) []byte {
	var b strings.Builder
	switch shape {
	case "sequence":
		b.WriteString("a0: &a0 [\"lol\"]\n")
		for i := 1; i <= levels; i++ {
			fmt.Fprintf(&b, "a%d: &a%d [", i, i)
			for j := 0; j < 10; j++ {
				if j > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, "*a%d", i-1)
			}
			b.WriteString("]\n")
		}
	case "mapping":
		b.WriteString("a0: &a0 {k: lol}\n")
		for i := 1; i <= levels; i++ {
			fmt.Fprintf(&b, "a%d: &a%d {", i, i)
			for j := 0; j < 10; j++ {
				if j > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, "k%d: *a%d", j, i-1)
			}
			b.WriteString("}\n")
		}
	case "merge":
		// Each level merges the previous one and adds ten keys holding it.
		b.WriteString("a0: &a0 {k: lol}\n")
		for i := 1; i <= levels; i++ {
			fmt.Fprintf(&b, "a%d: &a%d {<<: *a%d", i, i, i-1)
			for j := 0; j < 10; j++ {
				fmt.Fprintf(&b, ", l%dk%d: *a%d", i, j, i-1)
			}
			b.WriteString("}\n")
		}
	case "longstring":
		// Few nodes, but one long scalar aliased many times: under go-yaml's
		// ratio, caught by the aliased-bytes budget.
		fmt.Fprintf(&b, "s: &s %q\nl: [", strings.Repeat("x", 100000))
		for j := 0; j < 1000; j++ {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString("*s")
		}
		b.WriteString("]\n")
	}
	return []byte(b.String())
}

// TestAliasBombs: documents whose aliases expand to far more than they are
// fail with go-yaml's "excessive aliasing" error (what upstream's apiserver
// answers with 400) after bounded work: the bytes allocated while converting
// are asserted, not the time.
func TestAliasBombs(t *testing.T) {
	for _, shape := range []string{"sequence", "mapping", "merge", "longstring"} {
		for _, levels := range []int{9, 12} {
			if shape == "longstring" && levels > 9 {
				continue
			}
			doc := laughs(shape, levels)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := ToJSON(doc, "application/yaml")
			runtime.ReadMemStats(&after)
			if err == nil || err.Error() != "yaml: document contains excessive aliasing" {
				t.Errorf("%s/%d (%d bytes): err = %v, want excessive aliasing", shape, levels, len(doc), err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 512<<20 {
				t.Errorf("%s/%d: converting allocated %d MB before refusing", shape, levels, alloc>>20)
			}
		}
	}
}

// TestAliasesWithinBudget: ordinary use of anchors — a few levels, or a
// document much larger than its aliases — still converts.
func TestAliasesWithinBudget(t *testing.T) {
	for shape, levels := range map[string]int{"sequence": 3, "mapping": 3, "merge": 2} { // ~1,000 and ~120 expanded leaves
		if _, err := ToJSON(laughs(shape, levels), "application/yaml"); err != nil {
			t.Errorf("%s/%d: %v", shape, levels, err)
		}
	}
	got, err := ToJSON([]byte("base: &b {image: busybox, tag: \"1\"}\nuse: {<<: *b, tag: \"2\"}\nlist: [*b, *b]\n"), "application/yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"base":{"image":"busybox","tag":"1"},"list":[{"image":"busybox","tag":"1"},{"image":"busybox","tag":"1"}],"use":{"image":"busybox","tag":"2"}}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
