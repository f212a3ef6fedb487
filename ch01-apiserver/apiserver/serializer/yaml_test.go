package serializer

import (
	"errors"
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
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ToJSON(data, "application/yaml")
	})
}
