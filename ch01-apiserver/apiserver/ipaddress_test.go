package apiserver_test

import (
	"context"
	"net/http"
	"testing"

	"kubik/ch01-apiserver/storage"
)

// A storage written before ClusterIPs were IPAddress objects (each key
// holding the bare uid of its Service) is upgraded at start: a key whose
// Service still holds the address becomes that Service's IPAddress, one
// whose Service is gone is dropped. Deleting the Service afterwards
// releases the upgraded address, as it releases one allocated now.
func TestLegacyClusterIPKeysUpgraded(t *testing.T) {
	store := storage.NewMemory(0)
	ctx := context.Background()
	old := `{"kind":"Service","apiVersion":"v1","metadata":{"name":"old","namespace":"default","uid":"0b0c7f4e-1111-4a4a-9b9b-000000000001",` +
		`"creationTimestamp":"2026-11-30T10:00:00Z"},"spec":{"ports":[{"protocol":"TCP","port":80,"targetPort":80}],"clusterIP":"10.96.0.77",` +
		`"clusterIPs":["10.96.0.77"],"type":"ClusterIP","sessionAffinity":"None","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",` +
		`"internalTrafficPolicy":"Cluster"},"status":{"loadBalancer":{}}}`
	for key, value := range map[string]string{
		"/registry/services/specs/default/old": old,
		"/registry/ipaddresses/10.96.0.77":     "0b0c7f4e-1111-4a4a-9b9b-000000000001",
		"/registry/ipaddresses/10.96.0.78":     "0b0c7f4e-1111-4a4a-9b9b-00000000dead",
	} {
		if _, err := store.Create(ctx, key, []byte(value)); err != nil {
			t.Fatal(err)
		}
	}
	c := newCluster(t, store)

	const ips = "/apis/networking.k8s.io/v1/ipaddresses/"
	ip := c.get(t, ips+"10.96.0.77").must(t, http.StatusOK)
	jsonEqual(t, "parentRef", ip.path("spec.parentRef"), `{"resource":"services","namespace":"default","name":"old"}`)
	jsonEqual(t, "labels", ip.path("metadata.labels"), `{"ipaddress.kubernetes.io/ip-family":"IPv4","ipaddress.kubernetes.io/managed-by":"ipallocator.k8s.io"}`)
	c.get(t, ips+"10.96.0.78").expectError(t, http.StatusNotFound, "NotFound", `ipaddresses.networking.k8s.io "10.96.0.78" not found`)
	// The default ServiceCIDR and the kubernetes Service's address are there too.
	equal(t, "default ServiceCIDR", c.get(t, "/apis/networking.k8s.io/v1/servicecidrs/kubernetes").must(t, http.StatusOK).str("spec.cidrs.0"), "10.96.0.0/12")
	c.get(t, ips+"10.96.0.1").must(t, http.StatusOK)

	c.del(t, "/api/v1/namespaces/default/services/old", nil).must(t, http.StatusOK)
	c.get(t, ips+"10.96.0.77").expectError(t, http.StatusNotFound, "NotFound", `ipaddresses.networking.k8s.io "10.96.0.77" not found`)
}
