// Package resource is upstream's resource.Quantity: a fixed-point number with
// a suffix, such as "100m" CPU or "64Mi" of memory.
//
// Upstream: k8s.io/apimachinery/pkg/api/resource. The parser, the rounding and
// the canonical form are upstream's, so a quantity reads back from our server
// exactly as it reads back from a real one. Upstream keeps small values in an
// int64 and switches to an arbitrary-precision decimal when they overflow; we
// always use a math/big integer and a power of ten, which gives the same
// numbers with less code.
package resource

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Quantity is a fixed-point number: unscaled × 10^scale.
//
// A Quantity remembers the kind of suffix it was written with (its Format) and
// prints itself in the canonical form of that family: no fractional digits,
// the largest suffix that loses no precision ("1.5Gi" prints as "1536Mi",
// "0.5" as "500m"). Values are rounded up to a precision of 1n (10^-9) and
// binary values are capped at 2^63-1, as upstream does.
//
// On the wire (JSON and protobuf) a Quantity is its canonical string.
type Quantity struct {
	unscaled *big.Int // nil means zero; never modified once set, so copies may share it
	scale    int32    // the value is unscaled × 10^scale
	s        string   // the input text when it was already canonical (upstream keeps it)

	// Format is the suffix family used when printing.
	Format
}

// Format lists the three possible formattings of a quantity.
type Format string

const (
	DecimalExponent = Format("DecimalExponent") // e.g., 12e6
	BinarySI        = Format("BinarySI")        // e.g., 12Mi (12 * 2^20)
	DecimalSI       = Format("DecimalSI")       // e.g., 12M  (12 * 10^6)
)

// Scale is a power of ten: a quantity's value is some integer × 10^Scale.
type Scale int32

// The decimal SI scales.
const (
	Nano  Scale = -9
	Micro Scale = -6
	Milli Scale = -3
	Kilo  Scale = 3
	Mega  Scale = 6
	Giga  Scale = 9
	Tera  Scale = 12
	Peta  Scale = 15
	Exa   Scale = 18
)

// splitREString describes what ParseQuantity accepts; it is only used in the error message.
const splitREString = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"

// Errors that could happen while parsing a string (upstream's texts).
var (
	ErrFormatWrong = errors.New("quantities must match the regular expression '" + splitREString + "'")
	ErrNumeric     = errors.New("unable to parse numeric part of quantity")
	ErrSuffix      = errors.New("unable to parse quantity's suffix")
)

var (
	bigTen     = big.NewInt(10)
	big1024    = big.NewInt(1024)
	bigMaxInt  = big.NewInt(math.MaxInt64)
	bigMinInt  = big.NewInt(math.MinInt64)
	zeroAmount = new(big.Int)
)

// MustParse turns the given string into a quantity or panics; for tests
// or other cases where you know the string is valid.
func MustParse(str string) Quantity {
	q, err := ParseQuantity(str)
	if err != nil {
		panic(fmt.Errorf("cannot parse '%v': %v", str, err))
	}
	return q
}

// ParseQuantity turns str into a Quantity, or returns an error.
func ParseQuantity(str string) (Quantity, error) {
	if len(str) == 0 {
		return Quantity{}, ErrFormatWrong
	}
	if str == "0" {
		return Quantity{Format: DecimalSI, s: str}, nil
	}

	positive, num, denom, suf, err := parseQuantityString(str)
	if err != nil {
		return Quantity{}, err
	}
	base, exponent, format, ok := interpretSuffix(suf)
	if !ok {
		return Quantity{}, ErrSuffix
	}

	// The digits without the decimal point, and the power of ten that puts it back.
	unscaled, ok := new(big.Int).SetString(num+denom, 10)
	if !ok {
		return Quantity{}, ErrNumeric
	}
	scale := -int32(len(denom))
	if base == 10 {
		scale += exponent
	} else {
		unscaled.Lsh(unscaled, uint(exponent))
	}
	if !positive {
		unscaled.Neg(unscaled)
	}
	q := Quantity{unscaled: unscaled, scale: scale, Format: format}

	// Anything below 1n is rounded up (away from zero): if you ask for some
	// resource, you get some.
	if scale < int32(Nano) {
		q, _ = q.roundUp(Nano)
	}
	if format == BinarySI {
		// The binary formats are capped at what an int64 holds.
		if q.Abs().Cmp(Quantity{unscaled: bigMaxInt}) > 0 {
			q = Quantity{unscaled: big.NewInt(math.MaxInt64), Format: format}
			if !positive {
				q.unscaled.Neg(q.unscaled)
			}
		}
		// 0 < |q| < 1 cannot be written in binary units.
		if abs := q.Abs(); abs.Sign() > 0 && abs.CmpInt64(1) < 0 {
			q.Format = DecimalSI
		}
	}
	if inputIsCanonical(base, exponent, num, denom) {
		q.s = str
	}
	return q, nil
}

// inputIsCanonical reports whether upstream would keep the input text as the
// quantity's string instead of recomputing it. Upstream does this on its int64
// fast path when the digits already look canonical; the test is cheap and not
// exact, so "+1" prints as "+1" and "1.5M" as "1.5M" (not "1500k").
func inputIsCanonical(base, exponent int32, num, denom string) bool {
	digits := num + denom
	if base == 2 {
		// Upstream's precision estimate for its int64 path: only integral values
		// with few enough digits that the shift cannot overflow.
		if len(denom) > 0 || 15-len(num)-int(float32(exponent)*3/10)-1 < 0 {
			return false
		}
		v, err := strconv.ParseInt(digits, 10, 64)
		return err == nil && v&0x07 != 0 && v<<uint(exponent)>>uint(exponent) == v
	}
	scale := exponent - int32(len(denom))
	if len(digits) > 18 || scale < int32(Nano) {
		return false
	}
	return scale%3 == 0 && !strings.HasSuffix(digits, "000") && digits[0] != '0'
}

// parseQuantityString splits str into its sign, the digits before and after
// the decimal point (leading zeros dropped) and the suffix. It is upstream's
// scanner; only the suffix's shape is checked here, its meaning later.
func parseQuantityString(str string) (positive bool, num, denom, suffix string, err error) {
	positive = true
	pos, end := 0, len(str)
	if pos < end && (str[pos] == '-' || str[pos] == '+') {
		positive = str[pos] == '+'
		pos++
	}
	for pos < end && str[pos] == '0' {
		pos++
	}
	start := pos
	pos = skipDigits(str, pos)
	num = str[start:pos]
	if num == "" {
		num = "0"
	}
	if pos < end && str[pos] == '.' {
		start = pos + 1
		pos = skipDigits(str, start)
		denom = str[start:pos]
	}

	// The suffix: letters, then an optional signed exponent.
	start = pos
	for pos < end && strings.IndexByte("eEinumkKMGTP", str[pos]) >= 0 {
		pos++
	}
	if pos < end && (str[pos] == '-' || str[pos] == '+') {
		pos++
	}
	pos = skipDigits(str, pos)
	if pos < end {
		return false, "", "", "", ErrFormatWrong
	}
	return positive, num, denom, str[start:], nil
}

func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// The suffixes, by power (of 10 or of 2), and back.
var (
	decimalSuffixes = map[int32]string{-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
	binarySuffixes  = map[int32]string{10: "Ki", 20: "Mi", 30: "Gi", 40: "Ti", 50: "Pi", 60: "Ei"}
	decimalPowers   = invert(decimalSuffixes)
	binaryPowers    = invert(binarySuffixes)
)

func invert(m map[int32]string) map[string]int32 {
	r := make(map[string]int32, len(m))
	for k, v := range m {
		r[v] = k
	}
	return r
}

// interpretSuffix returns the base and exponent a suffix stands for, and the
// format it implies: "Mi" is 2^20 BinarySI, "k" is 10^3 DecimalSI, "e3" is
// 10^3 DecimalExponent.
func interpretSuffix(s string) (base, exponent int32, format Format, ok bool) {
	if e, ok := decimalPowers[s]; ok {
		return 10, e, DecimalSI, true
	}
	if e, ok := binaryPowers[s]; ok {
		return 2, e, BinarySI, true
	}
	if len(s) > 1 && (s[0] == 'e' || s[0] == 'E') {
		e, err := strconv.ParseInt(s[1:], 10, 32)
		if err != nil {
			return 0, 0, DecimalExponent, false
		}
		return 10, int32(e), DecimalExponent, true
	}
	return 0, 0, DecimalExponent, false
}

// NewQuantity returns a new Quantity representing the given value in the given format.
func NewQuantity(value int64, format Format) *Quantity {
	return &Quantity{unscaled: big.NewInt(value), Format: format}
}

// NewMilliQuantity returns a new Quantity representing value/1000 in the given format.
// "NewMilliQuantity(500, DecimalSI)" is "500m".
func NewMilliQuantity(value int64, format Format) *Quantity {
	return &Quantity{unscaled: big.NewInt(value), scale: int32(Milli), Format: format}
}

// NewScaledQuantity returns a new DecimalSI Quantity representing value × 10^scale.
func NewScaledQuantity(value int64, scale Scale) *Quantity {
	return &Quantity{unscaled: big.NewInt(value), scale: int32(scale), Format: DecimalSI}
}

// amount returns the unscaled value, never nil.
func (q Quantity) amount() *big.Int {
	if q.unscaled == nil {
		return zeroAmount
	}
	return q.unscaled
}

// DeepCopy returns a copy of q. The big integer inside is never modified in
// place, so sharing it is safe.
func (q Quantity) DeepCopy() Quantity { return q }

// IsZero reports whether the quantity is equal to zero.
func (q Quantity) IsZero() bool { return q.amount().Sign() == 0 }

// Sign returns 0 if the quantity is zero, -1 if it is negative, 1 if positive.
func (q Quantity) Sign() int { return q.amount().Sign() }

// Abs returns |q| in the same format.
func (q Quantity) Abs() Quantity {
	if q.Sign() >= 0 {
		return q
	}
	return Quantity{unscaled: new(big.Int).Neg(q.unscaled), scale: q.scale, Format: q.Format}
}

// aligned returns the unscaled values of a and b brought to the smaller of
// their scales, so that they can be compared, added or subtracted.
func aligned(a, b Quantity) (x, y *big.Int, scale int32) {
	x, y = a.amount(), b.amount()
	switch {
	case a.scale > b.scale:
		x = new(big.Int).Mul(x, pow10(a.scale-b.scale))
		return x, y, b.scale
	case a.scale < b.scale:
		y = new(big.Int).Mul(y, pow10(b.scale-a.scale))
	}
	return x, y, a.scale
}

func pow10(n int32) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// Cmp returns 0 if q equals y, 1 if q is greater, -1 if q is less.
func (q Quantity) Cmp(y Quantity) int {
	a, b, _ := aligned(q, y)
	return a.Cmp(b)
}

// CmpInt64 compares q with the integer y.
func (q Quantity) CmpInt64(y int64) int {
	return q.Cmp(Quantity{unscaled: big.NewInt(y)})
}

// Equal reports whether q and v hold the same value, whatever their formats.
func (q Quantity) Equal(v Quantity) bool { return q.Cmp(v) == 0 }

// Add adds y to q. A zero q takes y's format.
func (q *Quantity) Add(y Quantity) {
	if q.IsZero() {
		q.Format = y.Format
	}
	a, b, scale := aligned(*q, y)
	*q = Quantity{unscaled: new(big.Int).Add(a, b), scale: scale, Format: q.Format}
}

// Sub subtracts y from q. A zero q takes y's format.
func (q *Quantity) Sub(y Quantity) {
	if q.IsZero() {
		q.Format = y.Format
	}
	a, b, scale := aligned(*q, y)
	*q = Quantity{unscaled: new(big.Int).Sub(a, b), scale: scale, Format: q.Format}
}

// Mul multiplies q by y and reports whether the result still fits an int64 unscaled value.
func (q *Quantity) Mul(y int64) bool {
	p := new(big.Int).Mul(q.amount(), big.NewInt(y))
	*q = Quantity{unscaled: p, scale: q.scale, Format: q.Format}
	return p.IsInt64()
}

// Neg sets q to its negative value.
func (q *Quantity) Neg() {
	*q = Quantity{unscaled: new(big.Int).Neg(q.amount()), scale: q.scale, Format: q.Format}
}

// roundUp returns q with at most the precision of 10^scale, rounding away
// from zero, and whether that was exact.
func (q Quantity) roundUp(scale Scale) (Quantity, bool) {
	if q.scale >= int32(scale) {
		return q, true
	}
	if digits := int32(len(q.amount().Text(10))); int32(scale)-q.scale > digits {
		// |q| is far below one unit of scale: skip computing a huge power of ten.
		return Quantity{unscaled: big.NewInt(int64(q.Sign())), scale: int32(scale), Format: q.Format}, q.IsZero()
	}
	quo, rem := new(big.Int).QuoRem(q.amount(), pow10(int32(scale)-q.scale), new(big.Int))
	if rem.Sign() != 0 {
		quo.Add(quo, big.NewInt(int64(rem.Sign())))
	}
	return Quantity{unscaled: quo, scale: int32(scale), Format: q.Format}, rem.Sign() == 0
}

// RoundUp rounds q away from zero to a precision of 10^scale and reports
// whether no precision was lost.
func (q *Quantity) RoundUp(scale Scale) bool {
	r, exact := q.roundUp(scale)
	*q = r
	return exact
}

// ScaledValue returns ceil(q / 10^scale) (rounded away from zero), saturated
// to the int64 range. ScaledValue(0) is Value, ScaledValue(Milli) MilliValue.
func (q Quantity) ScaledValue(scale Scale) int64 {
	r, _ := q.roundUp(scale)
	v := r.amount()
	if r.scale-int32(scale) > 40 && v.Sign() != 0 {
		v = new(big.Int).Lsh(big.NewInt(int64(v.Sign())), 64) // saturates below
	} else if r.scale > int32(scale) {
		v = new(big.Int).Mul(v, pow10(r.scale-int32(scale)))
	}
	switch {
	case v.Cmp(bigMaxInt) > 0:
		return math.MaxInt64
	case v.Cmp(bigMinInt) < 0:
		return math.MinInt64
	}
	return v.Int64()
}

// Value returns the value of q rounded up to an integer: "100m" is 1.
func (q Quantity) Value() int64 { return q.ScaledValue(0) }

// MilliValue returns the value of q × 1000, rounded up: "1.5" is 1500.
func (q Quantity) MilliValue() int64 { return q.ScaledValue(Milli) }

// AsInt64 returns q as an int64 if it is an integer that fits one.
func (q Quantity) AsInt64() (int64, bool) {
	if q.scale < 0 {
		r, exact := q.roundUp(0)
		if !exact {
			return 0, false
		}
		q = r
	}
	v := new(big.Int).Mul(q.amount(), pow10(q.scale))
	if !v.IsInt64() {
		return 0, false
	}
	return v.Int64(), true
}

// AsApproximateFloat64 returns q as a float64, which may lose precision.
func (q Quantity) AsApproximateFloat64() float64 {
	base, _ := new(big.Float).SetInt(q.amount()).Float64()
	if q.scale == 0 {
		return base
	}
	return base * math.Pow10(int(q.scale))
}

// Set sets q to value, keeping its format.
func (q *Quantity) Set(value int64) { q.SetScaled(value, 0) }

// SetMilli sets q to value/1000, keeping its format.
func (q *Quantity) SetMilli(value int64) { q.SetScaled(value, Milli) }

// SetScaled sets q to value × 10^scale, keeping its format.
func (q *Quantity) SetScaled(value int64, scale Scale) {
	*q = Quantity{unscaled: big.NewInt(value), scale: int32(scale), Format: q.Format}
}

// String returns the canonical form of q (see Quantity).
func (q Quantity) String() string {
	if q.s != "" {
		return q.s
	}
	return q.canonical()
}

// canonical formats q in its format's family: the number carries no
// fractional digits and the suffix is as large as possible.
func (q Quantity) canonical() string {
	if q.IsZero() {
		return "0"
	}
	format := q.Format
	var integer Quantity
	switch format {
	case DecimalExponent, DecimalSI:
	case BinarySI:
		var exact bool
		if integer, exact = q.roundUp(0); !exact || (q.CmpInt64(-1024) > 0 && q.CmpInt64(1024) < 0) {
			// Small or fractional binary values are shown in decimal.
			format = DecimalSI
		}
	default:
		format = DecimalExponent
	}

	if format == BinarySI {
		// Move factors of 1024 into the suffix: 1536Ki stays, 1024Ki is 1Mi.
		v := new(big.Int).Mul(integer.amount(), pow10(integer.scale))
		var power int32
		for m := new(big.Int); ; power++ {
			quo, rem := new(big.Int).QuoRem(v, big1024, m)
			if rem.Sign() != 0 {
				break
			}
			v = quo
		}
		return v.String() + binarySuffixes[power*10]
	}

	// Move factors of 10 into the exponent, then make the exponent a multiple of 3.
	v, exponent := new(big.Int).Set(q.unscaled), q.scale
	for m := new(big.Int); ; exponent++ {
		quo, rem := new(big.Int).QuoRem(v, bigTen, m)
		if rem.Sign() != 0 {
			break
		}
		v = quo
	}
	for exponent%3 != 0 {
		v.Mul(v, bigTen)
		exponent--
	}
	if format == DecimalSI {
		return v.String() + decimalSuffixes[exponent]
	}
	if exponent == 0 {
		return v.String()
	}
	return v.String() + "e" + strconv.Itoa(int(exponent))
}

// MarshalJSON writes the canonical string.
func (q Quantity) MarshalJSON() ([]byte, error) {
	return []byte(`"` + q.String() + `"`), nil
}

// UnmarshalJSON accepts a string ("100m") or a bare number (0.1); surrounding
// spaces are ignored, null is zero.
func (q *Quantity) UnmarshalJSON(value []byte) error {
	s := strings.TrimSpace(string(value))
	if s == "null" {
		*q = Quantity{}
		return nil
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	parsed, err := ParseQuantity(strings.TrimSpace(s))
	if err != nil {
		return err
	}
	*q = parsed
	return nil
}

// QuantityPtrEqual reports whether a and b are both nil or hold equal values.
func QuantityPtrEqual(a, b *Quantity) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}
