package networkingv1

import (
	"os"
	"testing"

	"kubik/internal/apitest"
)

// The documents were recorded from a real v1.35 apiserver (managedFields
// left out): every field decodes into our types and encodes back the same.
func TestRoundTrip(t *testing.T) {
	for file, obj := range map[string]any{
		"testdata/ingress-simple.json":          &Ingress{},
		"testdata/ingressclass-other.json":      &IngressClass{},
		"testdata/networkpolicy-web-allow.json": &NetworkPolicy{},
		"testdata/servicecidr-kubernetes.json":  &ServiceCIDR{},
		"testdata/ipaddress-10.96.0.1.json":     &IPAddress{},
	} {
		doc, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(file, func(t *testing.T) { apitest.RoundTrip(t, doc, obj) })
	}
}
