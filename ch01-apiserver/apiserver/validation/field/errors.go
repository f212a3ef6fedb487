package field

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ErrorType says why a field is invalid. Its value is the machine-readable
// "reason" of a cause in a 422 Status (details.causes[].reason).
type ErrorType string

// The error types, with upstream's reasons (they equal metav1's CauseType values).
const (
	// ErrorTypeNotFound: a referenced value does not exist (a volumeMount naming no volume).
	ErrorTypeNotFound ErrorType = "FieldValueNotFound"
	// ErrorTypeRequired: an empty string, null or empty list where a value is needed.
	ErrorTypeRequired ErrorType = "FieldValueRequired"
	// ErrorTypeDuplicate: a value that must be unique is repeated.
	ErrorTypeDuplicate ErrorType = "FieldValueDuplicate"
	// ErrorTypeInvalid: a malformed value (regex, range, ...).
	ErrorTypeInvalid ErrorType = "FieldValueInvalid"
	// ErrorTypeNotSupported: a value outside an enumeration.
	ErrorTypeNotSupported ErrorType = "FieldValueNotSupported"
	// ErrorTypeForbidden: a well-formed value that is not allowed here or now.
	ErrorTypeForbidden ErrorType = "FieldValueForbidden"
	// ErrorTypeTooLong: a value that is too long; the value itself is not echoed.
	ErrorTypeTooLong ErrorType = "FieldValueTooLong"
	// ErrorTypeTooMany: a list with too many items.
	ErrorTypeTooMany ErrorType = "FieldValueTooMany"
	// ErrorTypeInternal: a failure that is not the user's fault.
	ErrorTypeInternal ErrorType = "InternalError"
	// ErrorTypeTypeInvalid: the value does not have the schema's type.
	ErrorTypeTypeInvalid ErrorType = "FieldValueTypeInvalid"
)

// String is the human-readable form that starts every error message.
func (t ErrorType) String() string {
	switch t {
	case ErrorTypeNotFound:
		return "Not found"
	case ErrorTypeRequired:
		return "Required value"
	case ErrorTypeDuplicate:
		return "Duplicate value"
	case ErrorTypeInvalid, ErrorTypeTypeInvalid:
		return "Invalid value"
	case ErrorTypeNotSupported:
		return "Unsupported value"
	case ErrorTypeForbidden:
		return "Forbidden"
	case ErrorTypeTooLong:
		return "Too long"
	case ErrorTypeTooMany:
		return "Too many"
	case ErrorTypeInternal:
		return "Internal error"
	default:
		return fmt.Sprintf("<unknown error %q>", string(t))
	}
}

// Error is one field-level validation error.
type Error struct {
	Type     ErrorType
	Field    string
	BadValue any
	Detail   string
}

// OmitValueType, as an error's BadValue, says the value must not be printed
// (upstream's field.OmitValueType): TooMany with an unknown count, a CEL
// rule's failure on an object.
type OmitValueType struct{}

var omitValue = OmitValueType{}

// Error renders "<field>: <body>", e.g. "spec.containers[0].image: Required value".
func (e *Error) Error() string {
	return e.Field + ": " + e.ErrorBody()
}

// ErrorBody is the message without the field; it is the "message" of a Status cause.
func (e *Error) ErrorBody() string {
	var s string
	switch e.Type {
	case ErrorTypeRequired, ErrorTypeForbidden, ErrorTypeTooLong, ErrorTypeInternal:
		// The value is empty, secret or too big: never echo it.
		s = e.Type.String()
	case ErrorTypeInvalid, ErrorTypeTypeInvalid, ErrorTypeNotSupported,
		ErrorTypeNotFound, ErrorTypeDuplicate, ErrorTypeTooMany:
		if e.BadValue == omitValue {
			s = e.Type.String()
			break
		}
		s = e.Type.String() + ": " + formatValue(e.BadValue)
	default:
		return InternalError(nil, fmt.Errorf("unhandled error code: %s: please report this", e.Type)).ErrorBody()
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// formatValue prints simple values plainly, strings quoted, and anything else
// as JSON, the way upstream does.
func formatValue(v any) string {
	switch t := v.(type) {
	case int64, int32, float64, float32, bool:
		return fmt.Sprintf("%v", t)
	case string:
		return strconv.Quote(t)
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%#v", v)
}

// Required reports a missing value: "Required value[: detail]".
func Required(field *Path, detail string) *Error {
	return &Error{Type: ErrorTypeRequired, Field: field.String(), BadValue: "", Detail: detail}
}

// Invalid reports a malformed value: `Invalid value: "Foo": detail`.
func Invalid(field *Path, value any, detail string) *Error {
	return &Error{Type: ErrorTypeInvalid, Field: field.String(), BadValue: value, Detail: detail}
}

// NotSupported reports a value outside an enumeration and lists the supported
// ones: `Unsupported value: "Sometimes": supported values: "Always", "Never"`.
func NotSupported[T ~string](field *Path, value any, validValues []T) *Error {
	detail := ""
	if len(validValues) > 0 {
		quoted := make([]string, len(validValues))
		for i, v := range validValues {
			quoted[i] = strconv.Quote(string(v))
		}
		detail = "supported values: " + strings.Join(quoted, ", ")
	}
	return &Error{Type: ErrorTypeNotSupported, Field: field.String(), BadValue: value, Detail: detail}
}

// Duplicate reports a repeated value that must be unique: `Duplicate value: "web"`.
func Duplicate(field *Path, value any) *Error {
	return &Error{Type: ErrorTypeDuplicate, Field: field.String(), BadValue: value}
}

// Forbidden reports a value that is well-formed but not allowed: "Forbidden: detail".
func Forbidden(field *Path, detail string) *Error {
	return &Error{Type: ErrorTypeForbidden, Field: field.String(), BadValue: "", Detail: detail}
}

// NotFound reports a reference to something that does not exist: `Not found: "x"`.
func NotFound(field *Path, value any) *Error {
	return &Error{Type: ErrorTypeNotFound, Field: field.String(), BadValue: value}
}

// TypeInvalid reports a value of the wrong type.
func TypeInvalid(field *Path, value any, detail string) *Error {
	return &Error{Type: ErrorTypeTypeInvalid, Field: field.String(), BadValue: value, Detail: detail}
}

// TooLong reports a value longer than maxLength bytes without echoing it:
// "Too long: may not be more than 63 bytes". A negative maxLength leaves the
// limit out.
func TooLong(field *Path, _ any, maxLength int) *Error {
	msg := "value is too long"
	if maxLength >= 0 {
		unit := "bytes"
		if maxLength == 1 {
			unit = "byte"
		}
		msg = fmt.Sprintf("may not be more than %d %s", maxLength, unit)
	}
	return &Error{Type: ErrorTypeTooLong, Field: field.String(), BadValue: "<value omitted>", Detail: msg}
}

// TooMany reports a list with more than maxQuantity items:
// "Too many: 3: must have at most 2 items". A negative actualQuantity is not printed.
func TooMany(field *Path, actualQuantity, maxQuantity int) *Error {
	msg := "has too many items"
	if maxQuantity >= 0 {
		unit := "items"
		if maxQuantity == 1 {
			unit = "item"
		}
		msg = fmt.Sprintf("must have at most %d %s", maxQuantity, unit)
	}
	var actual any = omitValue
	if actualQuantity >= 0 {
		actual = actualQuantity
	}
	return &Error{Type: ErrorTypeTooMany, Field: field.String(), BadValue: actual, Detail: msg}
}

// InternalError reports a server-side failure met while validating.
func InternalError(field *Path, err error) *Error {
	return &Error{Type: ErrorTypeInternal, Field: field.String(), BadValue: err, Detail: err.Error()}
}

// ErrorList is the result of validating an object; empty means valid.
type ErrorList []*Error

// Unique drops errors whose text repeats an earlier one, keeping the order;
// upstream does the same before joining errors into one message.
func (list ErrorList) Unique() ErrorList {
	seen := map[string]bool{}
	var out ErrorList
	for _, e := range list {
		msg := e.Error()
		if seen[msg] {
			continue
		}
		seen[msg] = true
		out = append(out, e)
	}
	return out
}

// Filter returns the errors whose type is not one of types.
func (list ErrorList) Filter(types ...ErrorType) ErrorList {
	var out ErrorList
next:
	for _, e := range list {
		for _, t := range types {
			if e.Type == t {
				continue next
			}
		}
		out = append(out, e)
	}
	return out
}
