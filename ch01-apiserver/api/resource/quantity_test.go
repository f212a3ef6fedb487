package resource

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The cases come from upstream's quantity_test.go.

func TestParseCanonical(t *testing.T) {
	tests := []struct {
		in, want string
		format   Format
	}{
		{"0", "0", DecimalSI},
		{"0n", "0", DecimalSI},
		{"0Ki", "0", BinarySI},
		{"1", "1", DecimalSI},
		{"-1", "-1", DecimalSI},
		{"123456789", "123456789", DecimalSI},
		{"100m", "100m", DecimalSI},
		{"0.5", "500m", DecimalSI},
		{"1000m", "1", DecimalSI},
		{"0.1", "100m", DecimalSI},
		{"1.5", "1500m", DecimalSI},
		{"1.08", "1080m", DecimalSI},
		{"1080000000n", "1080m", DecimalSI},
		{"1000u", "1m", DecimalSI},
		{"1000M", "1G", DecimalSI},
		{"0.001T", "1G", DecimalSI},
		{"1.5G", "1500M", DecimalSI},
		{"50k", "50k", DecimalSI},
		{"8.1k", "8100", DecimalSI},
		{"12E", "12E", DecimalSI},
		{"1Ki", "1Ki", BinarySI},
		{"1Gi", "1Gi", BinarySI},
		{"64Mi", "64Mi", BinarySI},
		{"1024Mi", "1Gi", BinarySI},
		{"307200Ki", "300Mi", BinarySI},
		{"1.5Gi", "1536Mi", BinarySI},
		{"0.5Mi", "512Ki", BinarySI},
		{"1025Mi", "1025Mi", BinarySI},
		{".001Ki", "1024m", BinarySI},
		{".000001Ki", "1024u", DecimalSI},
		{".000000001Ki", "1024n", DecimalSI},
		{".000000000001Ki", "2n", DecimalSI},
		{"9Ei", "9223372036854775807", BinarySI},
		{"9223372036854775807Ki", "9223372036854775807", BinarySI},
		{"1e3", "1e3", DecimalExponent},
		{"1E6", "1E6", DecimalExponent},
		{".001e12", "1e9", DecimalExponent},
		{"0.001e0", "1e-3", DecimalExponent},
		{"1000e-12", "1e-9", DecimalExponent},
		{"1.2e3", "1200", DecimalExponent},
		{"1.3E+6", "1300e3", DecimalExponent},
		{"0.5e-9", "1e-9", DecimalExponent},
		{"3.001n", "4n", DecimalSI},
		{"0.0000000001", "1n", DecimalSI},
		{"0.00000012345", "124n", DecimalSI},
		{"1.", "1.", DecimalSI},
		{"1.G", "1.G", DecimalSI},
		{"1.0", "1", DecimalSI},
		{"00", "0", DecimalSI},
		// Upstream keeps input text that looks canonical to its fast path.
		{"+1", "+1", DecimalSI},
		{"01", "01", DecimalSI},
		{"10.035M", "10.035M", DecimalSI},
		// Beyond int64.
		{"999999999999999999.1", "999999999999999999100m", DecimalSI},
		{"9999999999999999999", "9999999999999999999", DecimalSI},
		{"1000000000000000000", "1E", DecimalSI},
		{"10000000000000000000000m", "10E", DecimalSI},
		{"-9223372036854775808.1", "-9223372036854775808100m", DecimalSI},
		{"1.0000000000000000001E", "1000000000000000000100m", DecimalSI},
	}
	for _, tt := range tests {
		q, err := ParseQuantity(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if got := q.String(); got != tt.want {
			t.Errorf("%q: String() = %q, want %q", tt.in, got, tt.want)
		}
		if q.Format != tt.format {
			t.Errorf("%q: Format = %s, want %s", tt.in, q.Format, tt.format)
		}
		if q.IsZero() || strings.HasPrefix(tt.in, "+") || strings.HasPrefix(tt.in, "-") {
			continue
		}
		neg := MustParse("-" + tt.in)
		want := "-" + tt.want
		if strings.HasPrefix(tt.want, "+") {
			want = "-" + tt.want[1:]
		}
		if got := neg.String(); got != want {
			t.Errorf("-%q: String() = %q, want %q", tt.in, got, want)
		}
	}
}

func TestCanonicalFromValue(t *testing.T) {
	tests := []struct {
		q    *Quantity
		want string
	}{
		{NewQuantity(1024*1024*1024, BinarySI), "1Gi"},
		{NewQuantity(5, BinarySI), "5"},
		{NewMilliQuantity(500, BinarySI), "500m"},
		{NewQuantity(1025, BinarySI), "1025"},
		{NewScaledQuantity(1, 9), "1G"},
		{NewScaledQuantity(1000, 6), "1G"},
		{NewScaledQuantity(108, -2), "1080m"},
		{NewScaledQuantity(10800, -10), "1080n"},
		{NewScaledQuantity(1234567, 6), "1234567M"},
		{NewQuantity(0, DecimalExponent), "0"},
		{NewMilliQuantity(80, DecimalExponent), "80e-3"},
		{NewQuantity(300e6, DecimalExponent), "300e6"},
		{NewMilliQuantity(1500, DecimalSI), "1500m"},
		{&Quantity{}, "0"},
	}
	for _, tt := range tests {
		if got := tt.q.String(); got != tt.want {
			t.Errorf("%#v: String() = %q, want %q", tt.q, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := map[string]error{
		"":        ErrFormatWrong,
		"1.1.M":   ErrFormatWrong,
		"1+1.0M":  ErrFormatWrong,
		"aoeu":    ErrFormatWrong,
		" 1":      ErrFormatWrong,
		"1 ":      ErrFormatWrong,
		"-3.01e-": ErrSuffix,
		"0.1mi":   ErrSuffix,
		"0.1am":   ErrFormatWrong,
		".5i":     ErrSuffix,
		"1i":      ErrSuffix,
	}
	for in, want := range tests {
		if _, err := ParseQuantity(in); err != want {
			t.Errorf("%q: err = %v, want %v", in, err, want)
		}
	}
	want := "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
	if ErrFormatWrong.Error() != want {
		t.Errorf("message = %q", ErrFormatWrong.Error())
	}
}

func TestArithmetic(t *testing.T) {
	q := MustParse("100m")
	q.Add(MustParse("900m"))
	if q.String() != "1" || q.Value() != 1 || q.MilliValue() != 1000 {
		t.Errorf("100m+900m = %s", q.String())
	}
	q.Sub(MustParse("1.5"))
	if q.String() != "-500m" || q.Sign() != -1 {
		t.Errorf("1-1.5 = %s", q.String())
	}
	var z Quantity
	z.Add(MustParse("1Ki"))
	if z.String() != "1Ki" || z.Format != BinarySI {
		t.Errorf("0+1Ki = %s (%s)", z.String(), z.Format)
	}
	mem := MustParse("1Gi")
	mem.Sub(MustParse("512Mi"))
	if mem.String() != "512Mi" {
		t.Errorf("1Gi-512Mi = %s", mem.String())
	}
	if c := MustParse("1Ki").Cmp(MustParse("1024")); c != 0 {
		t.Errorf("1Ki cmp 1024 = %d", c)
	}
	if c := MustParse("999m").Cmp(MustParse("1")); c != -1 {
		t.Errorf("999m cmp 1 = %d", c)
	}
	if c := MustParse("1e3").Cmp(MustParse("1k")); c != 0 {
		t.Errorf("1e3 cmp 1k = %d", c)
	}
	if !MustParse("0m").IsZero() || MustParse("1n").IsZero() {
		t.Error("IsZero")
	}
	n := MustParse("5")
	n.Neg()
	if n.String() != "-5" {
		t.Errorf("Neg = %s", n.String())
	}
	d := MustParse("100m")
	c := d.DeepCopy()
	d.Add(MustParse("1"))
	if c.String() != "100m" {
		t.Errorf("copy changed: %s", c.String())
	}
}

func TestScaledValues(t *testing.T) {
	tests := []struct {
		in           string
		value, milli int64
	}{
		{"100m", 1, 100},
		{"1.5", 2, 1500},
		{"1Gi", 1 << 30, 1 << 30 * 1000},
		{"1n", 1, 1},
		{"-1.5", -2, -1500},
		{"1e3", 1000, 1000000},
		{"12E", math.MaxInt64, math.MaxInt64},
		{"9E", 9e18, math.MaxInt64},
	}
	for _, tt := range tests {
		q := MustParse(tt.in)
		if v := q.Value(); v != tt.value {
			t.Errorf("%s: Value() = %d, want %d", tt.in, v, tt.value)
		}
		if v := q.MilliValue(); v != tt.milli {
			t.Errorf("%s: MilliValue() = %d, want %d", tt.in, v, tt.milli)
		}
	}
	if f := MustParse("1.5Gi").AsApproximateFloat64(); f != 1.5*(1<<30) {
		t.Errorf("AsApproximateFloat64 = %v", f)
	}
	if f := MustParse("250m").AsApproximateFloat64(); f != 0.25 {
		t.Errorf("AsApproximateFloat64 = %v", f)
	}
	if v, ok := MustParse("2k").AsInt64(); !ok || v != 2000 {
		t.Errorf("AsInt64 = %d %v", v, ok)
	}
	if _, ok := MustParse("1500m").AsInt64(); ok {
		t.Error("AsInt64 of 1500m should fail")
	}
}

func TestJSON(t *testing.T) {
	type holder struct {
		Q Quantity  `json:"q"`
		P *Quantity `json:"p,omitempty"`
	}
	tests := []struct{ in, want string }{
		{`{"q":"0.5"}`, `{"q":"500m"}`},
		{`{"q":0.5}`, `{"q":"500m"}`},
		{`{"q":1024}`, `{"q":"1024"}`},
		{`{"q":1e3}`, `{"q":"1e3"}`},
		{`{"q":" 1"}`, `{"q":"1"}`},
		{`{"q":-1}`, `{"q":"-1"}`},
		{`{"q":"1.5Gi","p":"64Mi"}`, `{"q":"1536Mi","p":"64Mi"}`},
		{`{"q":null}`, `{"q":"0"}`},
	}
	for _, tt := range tests {
		var h holder
		if err := json.Unmarshal([]byte(tt.in), &h); err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		out, err := json.Marshal(h)
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if string(out) != tt.want {
			t.Errorf("%s: got %s, want %s", tt.in, out, tt.want)
		}
	}
	var h holder
	err := json.Unmarshal([]byte(`{"q":"1i"}`), &h)
	if err == nil || !strings.Contains(err.Error(), ErrSuffix.Error()) {
		t.Errorf("bad quantity: err = %v", err)
	}
}

func TestHugeExponentsAreCheap(t *testing.T) {
	q := MustParse("1e-999999999")
	if q.String() != "1e-9" {
		t.Errorf("String() = %s", q.String())
	}
	q = MustParse("1e999999999")
	if q.String() != "1e999999999" || q.Value() != math.MaxInt64 {
		t.Errorf("String() = %s, Value() = %d", q.String(), q.Value())
	}
}
