package field

import (
	"errors"
	"testing"
)

func TestPathString(t *testing.T) {
	cases := map[string]*Path{
		"spec.containers[0].image": NewPath("spec", "containers").Index(0).Child("image"),
		"metadata.labels[app]":     NewPath("metadata").Child("labels").Key("app"),
		"spec.template.spec":       NewPath("spec").Child("template", "spec"),
		"metadata":                 NewPath("metadata"),
	}
	for want, p := range cases {
		if got := p.String(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	var nilPath *Path
	if nilPath.String() != "<nil>" {
		t.Errorf("nil path: %q", nilPath.String())
	}
}

func TestErrorMessages(t *testing.T) {
	p := NewPath("spec", "restartPolicy")
	cases := []struct {
		err  *Error
		want string
	}{
		{Required(NewPath("spec", "containers"), ""), "spec.containers: Required value"},
		{Required(NewPath("metadata", "name"), "name or generateName is required"), "metadata.name: Required value: name or generateName is required"},
		{Invalid(NewPath("metadata", "name"), "Foo", "bad"), `metadata.name: Invalid value: "Foo": bad`},
		{Invalid(NewPath("spec", "replicas"), int64(-1), "must be greater than or equal to 0"), "spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
		{Invalid(NewPath("spec", "template", "metadata", "labels"), map[string]string{"app": "x"}, "`selector` does not match template `labels`"),
			"spec.template.metadata.labels: Invalid value: {\"app\":\"x\"}: `selector` does not match template `labels`"},
		{NotSupported(p, "Sometimes", []string{"Always", "Never", "OnFailure"}), `spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"`},
		{Duplicate(NewPath("spec", "containers").Index(1).Child("name"), "web"), `spec.containers[1].name: Duplicate value: "web"`},
		{Forbidden(NewPath("spec"), "nope"), "spec: Forbidden: nope"},
		{NotFound(NewPath("x"), "v"), `x: Not found: "v"`},
		{TooLong(NewPath("metadata", "annotations"), "", 262144), "metadata.annotations: Too long: may not be more than 262144 bytes"},
		{TooLong(NewPath("x"), "", -1), "x: Too long: value is too long"},
		{TooMany(NewPath("x"), 3, 2), "x: Too many: 3: must have at most 2 items"},
		{TooMany(NewPath("x"), -1, 1), "x: Too many: must have at most 1 item"},
		{InternalError(NewPath("x"), errors.New("boom")), "x: Internal error: boom"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestUnique(t *testing.T) {
	l := ErrorList{Required(NewPath("a"), ""), Required(NewPath("a"), ""), Required(NewPath("b"), "")}
	if got := len(l.Unique()); got != 2 {
		t.Errorf("Unique kept %d", got)
	}
}
