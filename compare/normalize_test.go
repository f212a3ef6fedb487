package compare

import (
	"strings"
	"testing"
)

func TestNormalizeReplacesWhatDiffersBetweenClusters(t *testing.T) {
	a := `NAME    READY   STATUS    RESTARTS   AGE
web     0/1     Pending   0          5s
nginx-597dd4954f-bwmvf   0/1   Pending   0   2m3s`
	b := `NAME    READY   STATUS    RESTARTS   AGE
web     0/1     Pending   0          12m
nginx-7c5ddbdf54-x7b2q   0/1   Pending   0   <invalid>`
	if Normalize(a) != Normalize(b) {
		t.Errorf("ages and generated names should normalise away:\n%s\n---\n%s", Normalize(a), Normalize(b))
	}
	for _, pair := range [][2]string{
		{`  uid: 09a93473-5611-4db2-83d0-162dd2b260dd`, `  uid: 264be9d0-7e8b-4fcf-bed3-322062f20f37`},
		{`  resourceVersion: "267"`, `  resourceVersion: "11"`},
		{`  creationTimestamp: "2026-11-30T02:51:57Z"`, `  creationTimestamp: "2026-12-01T10:00:00Z"`},
		{`CreationTimestamp:  Mon, 30 Nov 2026 02:51:58 +0000`, `CreationTimestamp:  Tue, 01 Dec 2026 10:00:00 +0000`},
		{`Server Version: v1.35.4`, `Server Version: v1.35.4-kubik`},
		{`Server Version: version.Info{Major:"1", Minor:"35", GitVersion:"v1.35.4", GitCommit:"", GitTreeState:"clean", BuildDate:"2026-11-30T03:22:00Z", GoVersion:"go1.26.8", Compiler:"gc", Platform:"linux/amd64"}`,
			`Server Version: version.Info{Major:"1", Minor:"35", GitVersion:"v1.35.4-kubik", GitCommit:"", GitTreeState:"clean", BuildDate:"2026-11-30T00:00:00Z", GoVersion:"go1.26.7", Compiler:"gc", Platform:"linux/amd64"}`},
		{`  clusterIP: 10.96.50.99`, `  clusterIP: 10.98.39.191`},
		{`Kubernetes control plane is running at https://127.0.0.1:6443`, `Kubernetes control plane is running at https://127.0.0.1:40123`},
		{`      name: kube-api-access-kkkp8`, `      name: kube-api-access-x7b2q`},
	} {
		if Normalize(pair[0]) != Normalize(pair[1]) {
			t.Errorf("should normalise to the same text:\n%q\n%q\n→ %q\n  %q", pair[0], pair[1], Normalize(pair[0]), Normalize(pair[1]))
		}
	}
}

// The normaliser must never hide a real difference.
func TestNormalizeKeepsRealDifferences(t *testing.T) {
	for _, pair := range [][2]string{
		// a different column or status
		{"NAME  READY  STATUS  RESTARTS  AGE\nweb  0/1  Pending  0  5s", "NAME  READY  STATUS  RESTARTS  AGE\nweb  1/1  Pending  0  5s"},
		{"NAME  READY  STATUS  RESTARTS  AGE\nweb  0/1  Pending  0  5s", "NAME  READY  STATUS  RESTARTS  AGE\nweb  0/1  Running  0  5s"},
		{"NAME  READY  STATUS  AGE\nweb  0/1  Pending  5s", "NAME  READY  STATUS  RESTARTS  AGE\nweb  0/1  Pending  0  5s"},
		// a duration that is not an age
		{"    tolerationSeconds: 300", "    tolerationSeconds: 30"},
		{"NAME  READY  STATUS  RESTARTS  AGE\nweb  0/1  Pending  3  5s", "NAME  READY  STATUS  RESTARTS  AGE\nweb  0/1  Pending  4  5s"},
		// a message
		{`Error from server (NotFound): pods "nope" not found`, `Error from server (NotFound): pod "nope" not found`},
		// a default
		{"    imagePullPolicy: IfNotPresent", "    imagePullPolicy: Always"},
		{"  terminationGracePeriodSeconds: 30", "  terminationGracePeriodSeconds: 31"},
		// the fixed ClusterIP of the kubernetes Service and a non-service address
		{"kubernetes  ClusterIP  10.96.0.1  <none>  443/TCP  5s", "kubernetes  ClusterIP  10.96.0.2  <none>  443/TCP  5s"},
		// the version struct's other fields still count
		{`version.Info{Major:"1", Minor:"35", GitVersion:"v1.35.4"}`, `version.Info{Major:"1", Minor:"34", GitVersion:"v1.35.4"}`},
		// a name that only looks generated when it is not
		{"pod/web created", "pod/wec created"},
		{"deployment.apps/nginx created", "deployment.apps/nginx configured"},
	} {
		if Normalize(pair[0]) == Normalize(pair[1]) {
			t.Errorf("a real difference was normalised away:\n%q\n%q\n→ %q", pair[0], pair[1], Normalize(pair[0]))
		}
	}
}

func TestGoldenRoundTrip(t *testing.T) {
	outs := []Output{
		{Command: "kubectl get ns", Text: "NAME  STATUS  AGE\ndefault  Active  <AGE>", Exit: 0},
		{Command: "cat > a.yaml <<'EOF'\nkind: Pod\nEOF", Text: "", Exit: 0},
		{Command: "kubectl get pod nope", Text: `Error from server (NotFound): pods "nope" not found`, Exit: 1},
	}
	var b strings.Builder
	if err := WriteGolden(&b, outs); err != nil {
		t.Fatal(err)
	}
	got, err := ReadGolden([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(outs) {
		t.Fatalf("got %d outputs, want %d:\n%s", len(got), len(outs), b.String())
	}
	for i := range outs {
		if got[i] != outs[i] {
			t.Errorf("output %d: got %+v, want %+v", i, got[i], outs[i])
		}
	}
}

func TestScoreAndPrint(t *testing.T) {
	s := &Scenario{Name: "x"}
	results := []Result{
		{Command: "a", Identical: true},
		{Command: "b", Ref: Output{Text: "one\ntwo"}, Ours: Output{Text: "one\nthree"}},
		{Command: "c # known: simplified", Known: "simplified", Ref: Output{Text: "p"}, Ours: Output{Text: "q"}},
	}
	n, m := Score(results)
	if n != 1 || m != 2 {
		t.Errorf("score %d of %d, want 1 of 2", n, m)
	}
	var b strings.Builder
	Print(&b, s, results, 80)
	out := b.String()
	for _, want := range []string{"same   $ a", "DIFF   $ b", "! two", "three", "x: 1 of 2 outputs identical (1 known differences not scored)"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
