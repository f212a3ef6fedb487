package nft

import (
	"context"
	"os"
	"os/exec"
	"reflect"
	"sort"
	"testing"

	"github.com/containernetworking/plugins/pkg/ns"
)

// TestRealNFT runs a transaction with the nft binary in a scratch network
// namespace and reads the objects and elements back, as a sync does.
func TestRealNFT(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	name := "kubik-ptest-nft-" + randomSuffix()
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", name).Run() })
	netns, err := ns.GetNS("/run/netns/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer netns.Close()

	comment := "ns1/svc1:p80"
	err = netns.Do(func(ns.NetNS) error {
		n, err := New(IPv4Family, "kube-proxy")
		if err != nil {
			return err
		}
		ctx := context.Background()
		if all, err := n.ListAll(ctx); err != nil || len(all) != 0 {
			t.Errorf("ListAll of a missing table: %v, %v", all, err)
		}
		tx := n.NewTransaction()
		tx.Add(&Table{Comment: &comment})
		tx.Add(&Chain{Name: "service-X-ns1/svc1/tcp/p80"})
		tx.Add(&Set{Name: "cluster-ips", Type: "ipv4_addr"})
		tx.Add(&Map{Name: "service-ips", Type: "ipv4_addr . inet_proto . inet_service : verdict"})
		tx.Add(&Map{Name: "no-endpoint-services", Type: "ipv4_addr . inet_proto . inet_service : verdict"})
		tx.Add(&Element{Set: "cluster-ips", Key: []string{"172.30.0.41"}})
		tx.Add(&Element{Map: "service-ips", Key: []string{"172.30.0.41", "tcp", "80"}, Value: []string{"goto service-X-ns1/svc1/tcp/p80"}})
		tx.Add(&Element{Map: "no-endpoint-services", Key: []string{"172.30.0.46", "tcp", "80"}, Value: []string{"drop"}, Comment: &comment})
		if err := n.Run(ctx, tx); err != nil {
			return err
		}
		// Another table of the family is not ours.
		other, err := New(IPv4Family, "other")
		if err != nil {
			return err
		}
		otx := other.NewTransaction()
		otx.Add(&Table{})
		otx.Add(&Chain{Name: "other-chain"})
		otx.Add(&Set{Name: "other-set", Type: "ipv4_addr"})
		otx.Add(&Map{Name: "other-map", Type: "ipv4_addr : verdict"})
		if err := other.Run(ctx, otx); err != nil {
			return err
		}
		all, err := n.ListAll(ctx)
		if err != nil {
			return err
		}
		for _, v := range all {
			sort.Strings(v)
		}
		want := map[string][]string{"chain": {"service-X-ns1/svc1/tcp/p80"}, "set": {"cluster-ips"}, "map": {"no-endpoint-services", "service-ips"}}
		if !reflect.DeepEqual(all, want) {
			t.Errorf("ListAll = %v, want %v", all, want)
		}
		// Chains are deleted over netlink, all or none; a referenced one
		// can't be.
		etx := n.NewTransaction()
		etx.Add(&Chain{Name: "endpoint-Y-ns1/svc1/tcp/p80__10.0.0.1/80"})
		if err := n.Run(ctx, etx); err != nil {
			return err
		}
		if err := n.DeleteChains(ctx, []string{"endpoint-Y-ns1/svc1/tcp/p80__10.0.0.1/80", "no-such-chain"}); err == nil {
			t.Errorf("DeleteChains of a missing chain: no error")
		}
		if err := n.DeleteChains(ctx, []string{"service-X-ns1/svc1/tcp/p80"}); err == nil {
			t.Errorf("DeleteChains of a chain a map element goes to: no error")
		}
		if err := n.DeleteChains(ctx, []string{"endpoint-Y-ns1/svc1/tcp/p80__10.0.0.1/80"}); err != nil {
			t.Errorf("DeleteChains: %v", err)
		}
		if all, err := n.ListAll(ctx); err != nil || !reflect.DeepEqual(all["chain"], want["chain"]) {
			t.Errorf("ListAll after DeleteChains: %v, %v", all, err)
		}
		for _, c := range []struct {
			typ, name string
			want      []*Element
		}{
			{"set", "cluster-ips", []*Element{{Set: "cluster-ips", Key: []string{"172.30.0.41"}}}},
			{"map", "service-ips", []*Element{{Map: "service-ips", Key: []string{"172.30.0.41", "tcp", "80"}, Value: []string{"goto service-X-ns1/svc1/tcp/p80"}}}},
			{"map", "no-endpoint-services", []*Element{{Map: "no-endpoint-services", Key: []string{"172.30.0.46", "tcp", "80"}, Value: []string{"drop"}, Comment: &comment}}},
		} {
			got, err := n.ListElements(ctx, c.typ, c.name)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("ListElements(%s %s) = %s, want %s", c.typ, c.name, dumpElements(got), dumpElements(c.want))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func dumpElements(els []*Element) string {
	tx := NewTransaction(IPv4Family, "kube-proxy")
	for _, e := range els {
		tx.Add(e)
	}
	return tx.String()
}
