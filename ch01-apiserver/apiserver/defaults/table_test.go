package defaults

import (
	"testing"

	"kubik/ch01-apiserver/api/metav1"
)

// defaultsCase is one object in and the defaulted object out, both as JSON.
// The expected outputs are what a 1.35 apiserver's defaulting (the scheme's
// defaulter functions of k8s.io/kubernetes v1.35.4) makes of the same input.
type defaultsCase struct {
	name string
	obj  func() metav1.Object // an empty object of the kind
	in   string
	want string
}

func runDefaultsCases(t *testing.T, cases []defaultsCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.obj()
			decode(t, tc.in, obj)
			Default(obj)
			sameJSON(t, tc.name, obj, tc.want)
		})
	}
}
