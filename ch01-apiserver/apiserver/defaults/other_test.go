package defaults

import (
	"testing"

	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/metav1"
)

func TestTokenRequestDefaults(t *testing.T) {
	tr := func() metav1.Object { return &authenticationv1.TokenRequest{} }
	runDefaultsCases(t, []defaultsCase{{
		name: "one hour",
		obj:  tr,
		in:   `{"metadata":{"name":"default"},"spec":{"audiences":["api"]}}`,
		want: `{"metadata":{"name":"default"},"spec":{"audiences":["api"],"expirationSeconds":3600,"boundObjectRef":null},
			"status":{"token":"","expirationTimestamp":null}}`,
	}, {
		name: "asked lifetime kept",
		obj:  tr,
		in:   `{"metadata":{"name":"default"},"spec":{"expirationSeconds":600}}`,
		want: `{"metadata":{"name":"default"},"spec":{"audiences":null,"expirationSeconds":600,"boundObjectRef":null},
			"status":{"token":"","expirationTimestamp":null}}`,
	}})
}
