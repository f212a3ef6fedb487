// Package intstr is upstream's IntOrString: a field that holds 80 or "http" or "25%".
package intstr

import (
	"encoding/json"
	"strconv"
)

// Type tells which of the two values an IntOrString holds.
type Type int64

const (
	Int    Type = iota // IntVal holds the value
	String             // StrVal holds the value
)

// IntOrString is serialised as a bare JSON number or string.
type IntOrString struct {
	Type   Type   `protobuf:"varint,1,opt,name=type,casttype=Type"`
	IntVal int32  `protobuf:"varint,2,opt,name=intVal"`
	StrVal string `protobuf:"bytes,3,opt,name=strVal"`
}

// FromInt returns an IntOrString holding an int.
func FromInt(v int) IntOrString { return IntOrString{Type: Int, IntVal: int32(v)} }

// FromString returns an IntOrString holding a string.
func FromString(s string) IntOrString { return IntOrString{Type: String, StrVal: s} }

// Parse makes an IntOrString from "80" (an int) or "http" (a string).
func Parse(s string) IntOrString {
	if v, err := strconv.Atoi(s); err == nil {
		return FromInt(v)
	}
	return FromString(s)
}

// String returns the value as text.
func (i IntOrString) String() string {
	if i.Type == String {
		return i.StrVal
	}
	return strconv.Itoa(int(i.IntVal))
}

func (i IntOrString) MarshalJSON() ([]byte, error) {
	if i.Type == String {
		return json.Marshal(i.StrVal)
	}
	return json.Marshal(i.IntVal)
}

func (i *IntOrString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		i.Type = String
		i.IntVal = 0
		return json.Unmarshal(b, &i.StrVal)
	}
	i.Type = Int
	i.StrVal = ""
	return json.Unmarshal(b, &i.IntVal)
}
