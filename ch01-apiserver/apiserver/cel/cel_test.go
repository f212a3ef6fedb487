package cel

import (
	"encoding/json"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
)

func eval(t *testing.T, expr string) (any, error) {
	t.Helper()
	base, err := BaseEnvironment()
	if err != nil {
		t.Fatal(err)
	}
	env, err := base.Extend(cel.Variable("self", cel.DynType))
	if err != nil {
		t.Fatal(err)
	}
	c, cerr := Compile(env, expr, "")
	if cerr != nil {
		return nil, cerr
	}
	v, _, err := c.Program.Eval(map[string]any{"self": types.DefaultTypeAdapter.NativeToValue(map[string]any{"a": []any{int64(3), int64(1), int64(2)}})})
	if err != nil {
		return nil, err
	}
	return v.Value(), nil
}

func TestBaseEnvironment(t *testing.T) {
	tests := []struct {
		expr string
		want any
	}{
		{"[1, 2, 3].isSorted()", true},
		{"[3, 1].isSorted()", false},
		{"[1, 2, 3].sum()", int64(6)},
		{"[1.5, 2.5].sum()", 4.0},
		{"[3, 1, 2].min()", int64(1)},
		{"['a', 'c', 'b'].max()", "c"},
		{"[1, 2, 1].indexOf(1)", int64(0)},
		{"[1, 2, 1].lastIndexOf(1)", int64(2)},
		{"[1, 2].indexOf(5)", int64(-1)},
		{"'abc 123 45'.find('[0-9]+')", "123"},
		{"'abc'.find('[0-9]+')", ""},
		{"'abc 123 45'.findAll('[0-9]+') == ['123', '45']", true},
		{"'a1b2c3'.findAll('[0-9]', 2) == ['1', '2']", true},
		{"'Hello'.lowerAscii()", "hello"},
		{"sets.contains([1, 2, 3], [2])", true},
		{"optional.of(1).orValue(2)", int64(1)},
		{"self.a.sum()", int64(6)},
		{"self.a.exists(x, x > 2)", true},
		{"{'a': 1}.all(k, v, v > 0)", true},
	}
	for _, tc := range tests {
		got, err := eval(t, tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s = %#v, want %#v", tc.expr, got, tc.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"self.a +", "compilation failed: ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.a +\n | ........^"},
		{"nope == 1", "compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope == 1\n | ^"},
		{"[].min()", ""},
	}
	for _, tc := range tests {
		_, err := eval(t, tc.expr)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if tc.expr == "[].min()" {
			if got != "min called on empty list" {
				t.Errorf("%s: %q", tc.expr, got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.expr, got, tc.want)
		}
	}
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"namespace": "__namespace__", "a-b": "a__dash__b", "a.b": "a__dot__b",
		"a/b": "a__slash__b", "a__b": "a__underscores__b", "plain": "plain",
	} {
		got, ok := Escape(in)
		if !ok || got != want {
			t.Errorf("Escape(%q) = %q, %v; want %q", in, got, ok, want)
		}
		if back := Unescape(got); back != in {
			t.Errorf("Unescape(%q) = %q", got, back)
		}
	}
	if _, ok := Escape("a b"); ok {
		t.Error("a name with a space escaped")
	}
}

func TestPerCallLimit(t *testing.T) {
	_, err := eval(t, "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))")
	if err == nil || err.Error() != "operation cancelled: actual cost limit exceeded" {
		t.Fatalf("got %v", err)
	}
}

// testSchema is a minimal Schema.
type testSchema struct {
	typ        string
	items      *testSchema
	properties map[string]*testSchema
	maxItems   *int64
}

func (s *testSchema) Type() string   { return s.typ }
func (s *testSchema) Format() string { return "" }
func (s *testSchema) Items() Schema {
	if s.items == nil {
		return nil
	}
	return s.items
}
func (s *testSchema) Properties() map[string]Schema {
	out := map[string]Schema{}
	for k, v := range s.properties {
		out[k] = v
	}
	return out
}
func (s *testSchema) AdditionalProperties() Schema   { return nil }
func (s *testSchema) IsXIntOrString() bool           { return false }
func (s *testSchema) IsXEmbeddedResource() bool      { return false }
func (s *testSchema) IsXPreserveUnknownFields() bool { return false }
func (s *testSchema) Nullable() bool                 { return false }
func (s *testSchema) MaxLength() *int64              { return nil }
func (s *testSchema) MaxItems() *int64               { return s.maxItems }
func (s *testSchema) MaxProperties() *int64          { return nil }

func TestDeclTypes(t *testing.T) {
	ten := int64(10)
	s := &testSchema{typ: "object", properties: map[string]*testSchema{
		"replicas":  {typ: "integer"},
		"namespace": {typ: "string"},
		"ports":     {typ: "array", maxItems: &ten, items: &testSchema{typ: "object", properties: map[string]*testSchema{"port": {typ: "integer"}}}},
	}}
	base, err := BaseEnvironment()
	if err != nil {
		t.Fatal(err)
	}
	d := NewDeclTypes(base.CELTypeProvider(), "Object", s)
	env, err := base.Extend(cel.CustomTypeProvider(d), cel.Variable("self", d.Root()))
	if err != nil {
		t.Fatal(err)
	}
	for expr, want := range map[string]string{
		"self.replicas + 1 > 2":         "",
		"self.__namespace__ == 'a'":     "",
		"self.ports.all(p, p.port > 0)": "",
		"has(self.replicas)":            "",
		"self.nope == 1":                "compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^",
		"self.replicas == 'a'":          "compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, string)'\n | self.replicas == 'a'\n | ..............^",
	} {
		c, cerr := Compile(env, expr, "")
		got := ""
		if cerr != nil {
			got = cerr.Error()
		}
		if got != want {
			t.Errorf("%s:\ngot  %q\nwant %q", expr, got, want)
			continue
		}
		if c == nil {
			continue
		}
		self := types.DefaultTypeAdapter.NativeToValue(NativeValue(map[string]any{
			"replicas": json.Number("3"), "namespace": "a", "ports": []any{map[string]any{"port": json.Number("80")}},
		}, s))
		if v, _, err := c.Program.Eval(map[string]any{"self": self}); err != nil || v != types.True {
			t.Errorf("%s = %v, %v", expr, v, err)
		}
	}
}
