package protobuf

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/authorizationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// The testdata are upstream's own encodings: a throwaway program built the
// objects kubectl 1.33 sends with k8s.io/api and encoded each one with
// k8s.io/apimachinery's protobuf serializer (name.pb, with the envelope) and
// with encoding/json (name.json).
var fixtures = []struct {
	name string
	new  func() metav1.Object
}{
	{name: "configmap", new: func() metav1.Object { return &corev1.ConfigMap{} }},
	{name: "secret", new: func() metav1.Object { return &corev1.Secret{} }},
	{name: "namespace", new: func() metav1.Object { return &corev1.Namespace{} }},
	{name: "serviceaccount", new: func() metav1.Object { return &corev1.ServiceAccount{} }},
	{name: "pod", new: func() metav1.Object { return &corev1.Pod{} }},
	{name: "deployment", new: func() metav1.Object { return &appsv1.Deployment{} }},
	{name: "deployment-rolling", new: func() metav1.Object { return &appsv1.Deployment{} }},
	{name: "tokenrequest", new: func() metav1.Object { return &authenticationv1.TokenRequest{} }},
	{name: "selfsubjectreview", new: func() metav1.Object { return &authenticationv1.SelfSubjectReview{} }},
	{name: "selfsubjectaccessreview", new: func() metav1.Object { return &authorizationv1.SelfSubjectAccessReview{} }},
	{name: "selfsubjectrulesreview", new: func() metav1.Object { return &authorizationv1.SelfSubjectRulesReview{} }},
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestUpstreamEncoding decodes upstream's protobuf into our types and
// compares with decoding upstream's JSON of the same object; then encodes
// ours back and expects upstream's bytes exactly.
func TestUpstreamEncoding(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			body := readFixture(t, f.name+".pb")
			jsonBody := readFixture(t, f.name+".json")
			var want metav1.TypeMeta
			if err := json.Unmarshal(jsonBody, &want); err != nil {
				t.Fatal(err)
			}
			apiVersion, kind, raw, err := DecodeEnvelope(body)
			if err != nil {
				t.Fatal(err)
			}
			if apiVersion != want.APIVersion || kind != want.Kind {
				t.Fatalf("envelope says %s %s, want %s %s", apiVersion, kind, want.APIVersion, want.Kind)
			}
			if got := EncodeEnvelope(apiVersion, kind, raw); !bytes.Equal(got, body) {
				t.Errorf("EncodeEnvelope:\n got % x\nwant % x", got, body)
			}
			fromPB := f.new()
			if err := Unmarshal(raw, fromPB); err != nil {
				t.Fatal(err)
			}
			*fromPB.GetTypeMeta() = metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
			fromJSON := f.new()
			if err := json.Unmarshal(jsonBody, fromJSON); err != nil {
				t.Fatal(err)
			}
			gotJSON, _ := json.Marshal(fromPB)
			wantJSON, _ := json.Marshal(fromJSON)
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("decoded from protobuf:\n%s\ndecoded from JSON:\n%s", gotJSON, wantJSON)
			}

			again, err := Marshal(fromPB)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, raw) {
				t.Errorf("Marshal differs from upstream:\n got % x\nwant % x", again, raw)
			}
		})
	}
}

// special holds every hand-written or tricky shape in one message.
type special struct {
	Time      metav1.Time        `protobuf:"bytes,1,opt,name=time"`
	TimePtr   *metav1.Time       `protobuf:"bytes,2,opt,name=timePtr"`
	Micro     metav1.MicroTime   `protobuf:"bytes,3,opt,name=micro"`
	Duration  metav1.Duration    `protobuf:"bytes,4,opt,name=duration"`
	Quantity  resource.Quantity  `protobuf:"bytes,5,opt,name=quantity"`
	IntStr    intstr.IntOrString `protobuf:"bytes,6,opt,name=intStr"`
	IntStrPtr *intstr.IntOrString
	Fields    metav1.FieldsV1               `protobuf:"bytes,7,opt,name=fields"`
	Neg32     int32                         `protobuf:"varint,8,opt,name=neg32"`
	Neg64     *int64                        `protobuf:"varint,9,opt,name=neg64"`
	Float     float64                       `protobuf:"fixed64,10,opt,name=float"`
	Ints      []int32                       `protobuf:"varint,11,rep,name=ints"`
	Bytes     []byte                        `protobuf:"bytes,12,opt,name=bytes"`
	ByteList  [][]byte                      `protobuf:"bytes,13,rep,name=byteList"`
	Resources map[string]resource.Quantity  `protobuf:"bytes,14,rep,name=resources"`
	Nested    map[string]*metav1.ObjectMeta `protobuf:"bytes,15,rep,name=nested"`
	Flag      bool                          `protobuf:"varint,16,opt,name=flag"`
	Skipped   string                        `protobuf:"-"`
}

func TestRoundTripSpecialTypes(t *testing.T) {
	neg := int64(-1)
	ts := metav1.NewTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	in := special{
		Time:      ts,
		TimePtr:   &ts,
		Micro:     metav1.MicroTime{Time: time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)},
		Duration:  metav1.Duration{Duration: 90 * time.Second},
		Quantity:  resource.MustParse("1.5Gi"),
		IntStr:    intstr.FromString("25%"),
		IntStrPtr: &intstr.IntOrString{}, // no tag: not encoded
		Fields:    metav1.FieldsV1{Raw: json.RawMessage(`{"f:data":{}}`)},
		Neg32:     -5,
		Neg64:     &neg,
		Float:     0.25,
		Ints:      []int32{1, -2, 300},
		Bytes:     []byte{},
		ByteList:  [][]byte{{1}, {2, 3}},
		Resources: map[string]resource.Quantity{"cpu": resource.MustParse("100m"), "memory": resource.MustParse("64Mi")},
		Nested:    map[string]*metav1.ObjectMeta{"a": {Name: "x", Labels: map[string]string{"k": "v"}}},
		Flag:      true,
		Skipped:   "not encoded",
	}
	b, err := Marshal(&in)
	if err != nil {
		t.Fatal(err)
	}
	var out special
	if err := Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	in.IntStrPtr, in.Skipped = nil, ""
	gotJSON, _ := json.Marshal(out)
	wantJSON, _ := json.Marshal(in)
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Errorf("round trip:\n got %s\nwant %s", gotJSON, wantJSON)
	}
	if out.Bytes == nil {
		t.Error("an empty but present bytes field must decode as non-nil")
	}
	// The zero time is an empty message, and decodes as the zero time.
	b, _ = Marshal(&special{})
	var zero special
	if err := Unmarshal(b, &zero); err != nil {
		t.Fatal(err)
	}
	if !zero.Time.IsZero() || zero.TimePtr != nil || !zero.Quantity.IsZero() {
		t.Errorf("zero values: %+v", zero)
	}
}

func TestPackedRepeated(t *testing.T) {
	// field 11, wire type 2, length 4: 1, 2, 0x96 0x01 (150)
	var out special
	if err := Unmarshal([]byte{0x5a, 4, 1, 2, 0x96, 1}, &out); err != nil {
		t.Fatal(err)
	}
	if want := []int32{1, 2, 150}; !slicesEqual(out.Ints, want) {
		t.Errorf("packed: got %v, want %v", out.Ints, want)
	}
}

func slicesEqual(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestUnknownFieldsAreSkipped(t *testing.T) {
	// field 99 varint, field 98 bytes, field 97 fixed32, then metadata.name.
	raw := []byte{0x98, 0x06, 7, 0x92, 0x06, 2, 'h', 'i', 0x8d, 0x06, 1, 2, 3, 4, 0x0a, 3, 0x0a, 1, 'x'}
	var cm corev1.ConfigMap
	if err := Unmarshal(raw, &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Name != "x" {
		t.Errorf("name = %q", cm.Name)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		body       []byte
	}{
		{"json", `does not start with the magic`, []byte(`{"kind":"ConfigMap"}`)},
		{"empty", `does not start with the magic`, nil},
		{"no kind", `no kind`, EncodeEnvelope("v1", "", nil)},
		{"truncated", `unexpected EOF`, EncodeEnvelope("v1", "ConfigMap", []byte{1})[:12]},
		{"encoding", `unsupported content encoding "gzip"`, append(EncodeEnvelope("v1", "ConfigMap", nil), 0x1a, 4, 'g', 'z', 'i', 'p')},
	} {
		_, _, _, err := DecodeEnvelope(tc.body)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}

	var cm corev1.ConfigMap
	// metadata (field 1) as a varint.
	err := Unmarshal([]byte{0x08, 1}, &cm)
	if err == nil || !strings.Contains(err.Error(), "ConfigMap.metadata: wrong wire type 0") {
		t.Errorf("wrong wire type: %v", err)
	}
	// metadata.labels entry cut short.
	err = Unmarshal([]byte{0x0a, 4, 0x5a, 2, 0x0a, 5}, &cm)
	if err == nil || !strings.Contains(err.Error(), "ObjectMeta.labels") {
		t.Errorf("truncated map entry: %v", err)
	}
	if err := Unmarshal(nil, cm); err == nil {
		t.Error("Unmarshal into a non-pointer must fail")
	}
}

// FuzzUnmarshal proves that no input makes the decoder panic.
func FuzzUnmarshal(f *testing.F) {
	for _, fx := range fixtures {
		f.Add(readFixture(f, fx.name+".pb"))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _, raw, err := DecodeEnvelope(body)
		if err != nil {
			raw = body
		}
		_ = Unmarshal(raw, &corev1.Pod{})
		_ = Unmarshal(raw, &appsv1.Deployment{})
		_ = Unmarshal(raw, &special{})
	})
}
