package main_test

// End-to-end authentication and authorization with the real kubectl 1.27 and
// 1.33: a user without bindings, RBAC, can-i and whoami, impersonation, a
// kubelet's identity under the Node authorizer, static and ServiceAccount
// tokens, and RBAC's escalation check. Messages are upstream's, verbatim.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/apiserver"
	"kubik/ch01-apiserver/pki"
	"kubik/internal/testenv"
)

func TestAuthEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the apiserver and runs kubectl 1.27 and 1.33 against it")
	}
	bin := testenv.Build(t, "kubik/ch01-apiserver")
	for _, v := range []string{"1.27", "1.33"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			testenv.Kubectl(t, v)
			t.Parallel()
			dir := t.TempDir()
			tokens := filepath.Join(dir, "tokens.csv")
			if err := os.WriteFile(tokens, []byte("s3cr3t-bob,bob,1001,\"dev,ops\"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			c := testenv.Start(t, bin, testenv.Options{Args: []string{"--token-auth-file", tokens}})
			k := &kube{t: t, c: c, v: v, dir: dir}
			a := &authTest{kube: k, bin: bin}
			a.alice = a.issue("--user", "alice", "--group", "dev")
			a.node1 = a.issue("--component", "node:node-1")
			a.tokenOnly = a.writeTokenKubeconfig()

			a.denied()
			a.viewBinding()
			a.canI()
			a.whoami()
			a.nodeIdentity()
			a.tokens()
			a.issuerDiscovery()
			a.escalation()
		})
	}
}

type authTest struct {
	*kube
	bin                     string
	alice, node1, tokenOnly string // kubeconfig paths
}

// issue runs "<binary> kubeconfig" like a reader would.
func (a *authTest) issue(args ...string) string {
	a.t.Helper()
	out := filepath.Join(a.dir, strings.NewReplacer("--", "", ":", "-").Replace(strings.Join(args, "_"))+".kubeconfig")
	cmd := exec.Command(a.bin, append([]string{"kubeconfig", "--data-dir", a.c.DataDir, "--out", out}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		a.t.Fatalf("kubeconfig %v: %v\n%s", args, err, b)
	}
	return out
}

// writeTokenKubeconfig: the cluster and its CA, no credentials (kubectl --token adds them).
func (a *authTest) writeTokenKubeconfig() string {
	ca, err := os.ReadFile(filepath.Join(pki.Dir(a.c.DataDir), pki.CACertFile))
	if err != nil {
		a.t.Fatal(err)
	}
	caFile := filepath.Join(a.dir, "ca.crt")
	os.WriteFile(caFile, ca, 0o644)
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: kubik\n  cluster:\n    server: " + a.c.URL +
		"\n    certificate-authority: " + caFile + "\ncontexts:\n- name: token\n  context:\n    cluster: kubik\n    user: token\n" +
		"current-context: token\nusers:\n- name: token\n  user: {}\n"
	path := filepath.Join(a.dir, "token.kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		a.t.Fatal(err)
	}
	return path
}

// as runs kubectl with another kubeconfig (the last --kubeconfig wins).
func as(kubeconfig string, args ...string) []string {
	return append([]string{"--kubeconfig", kubeconfig}, args...)
}

func (a *authTest) denied() {
	a.fails("Error from server (Forbidden): pods is forbidden: User \"alice\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"\n",
		as(a.alice, "get", "pods")...)
	a.fails("Error from server (Forbidden): nodes is forbidden: User \"alice\" cannot list resource \"nodes\" in API group \"\" at the cluster scope\n",
		as(a.alice, "get", "nodes")...)
	a.fails("Error from server (Forbidden): configmaps \"x\" is forbidden: User \"alice\" cannot get resource \"configmaps\" in API group \"\" in the namespace \"default\"\n",
		as(a.alice, "get", "configmap", "x")...)
	// Discovery stays readable: the error above is about pods, not about /api.
	a.ok("yes\n", as(a.alice, "auth", "can-i", "get", "/api")...)
}

func (a *authTest) viewBinding() {
	a.ok("rolebinding.rbac.authorization.k8s.io/alice-view created\n", "create", "rolebinding", "alice-view", "--clusterrole=view", "--user=alice")
	a.ok("configmap/cfg created\n", "create", "configmap", "cfg", "--from-literal=k=v")
	a.exact(as(a.alice, "get", "pods"), "", "No resources found in default namespace.\n", 0)
	r := a.run(as(a.alice, "get", "configmaps", "cfg")...)
	if r.ExitCode != 0 || !strings.HasPrefix(r.Stdout, "NAME   DATA   AGE\ncfg    1      ") {
		a.t.Errorf("alice get configmaps: %+v", r)
	}
	a.fails("Error from server (Forbidden): configmaps \"cfg\" is forbidden: User \"alice\" cannot delete resource \"configmaps\" in API group \"\" in the namespace \"default\"\n",
		as(a.alice, "delete", "configmap", "cfg")...)
	// view does not include secrets
	a.fails("Error from server (Forbidden): secrets is forbidden: User \"alice\" cannot list resource \"secrets\" in API group \"\" in the namespace \"default\"\n",
		as(a.alice, "get", "secrets")...)
}

func (a *authTest) canI() {
	a.exact([]string{"auth", "can-i", "list", "pods", "--as", "alice"}, "yes\n", "", 0)
	a.exact([]string{"auth", "can-i", "delete", "pods", "--as", "alice"}, "no\n", "", 1)
	a.exact([]string{"auth", "can-i", "list", "pods", "--as", "alice", "-n", "kube-system"}, "no\n", "", 1)
	a.exact([]string{"auth", "can-i", "list", "pods", "--as", "bob", "--as-group", "dev"}, "no\n", "", 1)
	a.exact([]string{"auth", "can-i", "create", "deployments.apps"}, "yes\n", "", 0)
	a.exact(as(a.alice, "auth", "can-i", "list", "pods"), "yes\n", "", 0)
	a.exact(as(a.alice, "auth", "can-i", "create", "pods"), "no\n", "", 1)
	// Impersonation needs the "impersonate" verb: alice does not have it. (get --raw:
	// other commands fail earlier, in discovery, where kubectl prints "unknown".)
	a.fails("Error from server (Forbidden): users \"bob\" is forbidden: User \"alice\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope\n",
		as(a.alice, "get", "--raw", "/api/v1/namespaces/default/pods", "--as", "bob")...)

	r := a.run(as(a.alice, "auth", "can-i", "--list")...)
	lines := strings.Split(r.Stdout, "\n")
	header := regexpFields(lines[0])
	if r.ExitCode != 0 || header != "Resources|Non-Resource URLs|Resource Names|Verbs" {
		a.t.Fatalf("can-i --list: %+v", r)
	}
	for _, want := range []string{
		"selfsubjectaccessreviews.authorization.k8s.io|[]|[]|[create]",
		"pods|[]|[]|[get list watch]",
		"deployments.apps|[]|[]|[get list watch]",
		"|[/api]|[]|[get]",
	} {
		found := false
		for _, l := range lines[1:] {
			found = found || regexpFields(l) == want || regexpFields(l) == strings.TrimPrefix(want, "|")
		}
		if !found {
			a.t.Errorf("can-i --list: no row %q in\n%s", want, r.Stdout)
		}
	}
}

// regexpFields joins the columns of a table row (2+ spaces apart) with "|".
func regexpFields(line string) string {
	var out []string
	for _, f := range strings.Split(strings.TrimSpace(line), "  ") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return strings.Join(out, "|")
}

func (a *authTest) whoami() {
	if a.v == "1.27" {
		// kubectl 1.27 knows only authentication.k8s.io/v1alpha1 and v1beta1
		// SelfSubjectReview, which a 1.35 apiserver no longer serves.
		a.fails("error: the selfsubjectreviews API is not enabled in the cluster\n"+
			"enable APISelfSubjectReview feature gate and authentication.k8s.io/v1alpha1 or authentication.k8s.io/v1beta1 API\n", "auth", "whoami")
		return
	}
	// A certificate user: the credential-id extra is the certificate's SHA-256, as upstream (1.32+).
	certUser := func(user, groups string, args ...string) {
		a.t.Helper()
		r := a.run(args...)
		re := regexp.MustCompile(`^ATTRIBUTE +VALUE\nUsername +` + regexp.QuoteMeta(user) + `\nGroups +` + regexp.QuoteMeta(groups) +
			`\nExtra: authentication.kubernetes.io/credential-id +\[X509SHA256=[0-9a-f]{64}\]\n$`)
		if r.ExitCode != 0 || r.Stderr != "" || !re.MatchString(r.Stdout) {
			a.t.Errorf("kubectl %v: exit %d, stderr %q, stdout:\n%s\nwant to match %s", args, r.ExitCode, r.Stderr, r.Stdout, re)
		}
	}
	certUser("alice", "[dev system:authenticated]", as(a.alice, "auth", "whoami")...)
	certUser("kubernetes-admin", "[system:masters system:authenticated]", "auth", "whoami")
	// Impersonation replaces the whole identity, extras included.
	a.ok("ATTRIBUTE   VALUE\nUsername    alice\nGroups      [dev system:authenticated]\n", "auth", "whoami", "--as", "alice", "--as-group", "dev")
}

func (a *authTest) nodeIdentity() {
	pod := func(name, node string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"nodeName":"` + node +
			`","containers":[{"name":"c","image":"busybox"}]}}`
	}
	a.write("pods.json", `{"apiVersion":"v1","kind":"List","items":[`+pod("on-1", "node-1")+`,`+pod("on-2", "node-2")+`]}`)
	a.ok("pod/on-1 created\npod/on-2 created\n", "create", "-f", "pods.json")
	n := func(args ...string) []string { return as(a.node1, args...) }
	r := a.run(n("get", "pod", "on-1")...)
	if r.ExitCode != 0 || !strings.HasPrefix(r.Stdout, "NAME   READY   STATUS") {
		a.t.Errorf("node-1 get its pod: %+v", r)
	}
	a.fails("Error from server (Forbidden): pods \"on-2\" is forbidden: User \"system:node:node-1\" cannot get resource \"pods\" in API group \"\" in the namespace \"default\": no relationship found between node 'node-1' and this object\n",
		n("get", "pod", "on-2")...)
	a.fails("Error from server (Forbidden): pods is forbidden: User \"system:node:node-1\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\": can only list/watch pods with spec.nodeName field selector\n",
		n("get", "pods")...)
	r = a.run(n("get", "pods", "-A", "--field-selector", "spec.nodeName=node-1")...)
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "on-1") || strings.Contains(r.Stdout, "on-2") {
		a.t.Errorf("node-1 lists its pods: %+v", r)
	}
	a.fails("Error from server (Forbidden): pods \"on-2\" is forbidden: node \"node-1\" can only delete pods with spec.nodeName set to itself\n",
		n("delete", "pod", "on-2")...)
}

func (a *authTest) tokens() {
	tok := func(token string, args ...string) []string {
		return append([]string{"--kubeconfig", a.tokenOnly, "--token", token}, args...)
	}
	// "Who am I" as a plain SelfSubjectReview create, which every kubectl
	// version can send (kubectl 1.27's "auth whoami" cannot talk to 1.35).
	a.write("ssr.yaml", "apiVersion: authentication.k8s.io/v1\nkind: SelfSubjectReview\n")
	whoAmI := func(args ...string) []string {
		return append(args, "create", "-f", "ssr.yaml", "-o", `jsonpath={.status.userInfo.username} {.status.userInfo.uid} {.status.userInfo.groups}{"\n"}`)
	}
	a.ok("bob 1001 [\"dev\",\"ops\",\"system:authenticated\"]\n", whoAmI(tok("s3cr3t-bob")...)...)
	// get --raw: a command that needs discovery first fails there and says
	// "(the server has asked for the client to provide credentials)" instead.
	unauthorized := func(token string) {
		a.t.Helper()
		a.fails("error: You must be logged in to the server (Unauthorized)\n", tok(token, "get", "--raw", "/api/v1/namespaces/default/pods")...)
	}
	unauthorized("wrong")

	a.ok("serviceaccount/robot created\n", "create", "serviceaccount", "robot")
	r := a.run("create", "token", "robot")
	saToken := strings.TrimSpace(r.Stdout)
	if r.ExitCode != 0 || strings.Count(saToken, ".") != 2 {
		a.t.Fatalf("create token: %+v", r)
	}
	r = a.run(whoAmI(tok(saToken)...)...)
	if r.ExitCode != 0 || !regexp.MustCompile(`^system:serviceaccount:default:robot [0-9a-f-]{36} \["system:serviceaccounts","system:serviceaccounts:default","system:authenticated"\]\n$`).MatchString(r.Stdout) {
		a.t.Errorf("whoami with the ServiceAccount token: %+v", r)
	}
	a.fails("Error from server (Forbidden): pods is forbidden: User \"system:serviceaccount:default:robot\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"\n",
		tok(saToken, "get", "pods")...)

	// An expired token signed with the right key, and a fresh one signed with another key.
	key, err := pki.EnsureServiceAccountKey(a.c.DataDir)
	if err != nil {
		a.t.Fatal(err)
	}
	claims := func(exp time.Time) map[string]any {
		return map[string]any{"iss": apiserver.DefaultServiceAccountIssuer, "sub": "system:serviceaccount:default:robot",
			"aud": []string{apiserver.DefaultServiceAccountIssuer}, "exp": exp.Unix(), "iat": exp.Add(-time.Hour).Unix(), "nbf": exp.Add(-time.Hour).Unix(),
			"kubernetes.io": map[string]any{"namespace": "default", "serviceaccount": map[string]any{"name": "robot"}}}
	}
	expired, err := apiserver.SignJWT(key, claims(time.Now().Add(-2*time.Hour)))
	if err != nil {
		a.t.Fatal(err)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	forged, _ := apiserver.SignJWT(other, claims(time.Now().Add(time.Hour)))
	unauthorized(expired)
	unauthorized(forged)
	// The same claims signed with the right key and not expired: accepted.
	good, _ := apiserver.SignJWT(key, claims(time.Now().Add(time.Hour)))
	a.exact(tok(good, "auth", "can-i", "get", "pods"), "no\n", "", 1)
}

func (a *authTest) escalation() {
	// alice may edit in "default" and create Roles there, but not grant what she lacks.
	a.ok("role.rbac.authorization.k8s.io/role-creator created\n", "create", "role", "role-creator", "--verb=create", "--resource=roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io")
	a.ok("rolebinding.rbac.authorization.k8s.io/alice-role-creator created\n", "create", "rolebinding", "alice-role-creator", "--role=role-creator", "--user=alice")
	a.ok("rolebinding.rbac.authorization.k8s.io/alice-edit created\n", "create", "rolebinding", "alice-edit", "--clusterrole=edit", "--user=alice")
	a.ok("role.rbac.authorization.k8s.io/pod-reader created\n", as(a.alice, "create", "role", "pod-reader", "--verb=get,list", "--resource=pods")...)
	a.fails("Error from server (Forbidden): roles.rbac.authorization.k8s.io \"node-lister\" is forbidden: user \"alice\" (groups=[\"dev\" \"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n"+
		"{APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"list\"]}\n",
		as(a.alice, "create", "role", "node-lister", "--verb=list", "--resource=nodes")...)
	// Binding a role she does not hold is refused the same way (the
	// bootstrap roles' verbs sorted, as upstream's rule builder sorts them).
	a.fails("error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io \"alice-admin\" is forbidden: user \"alice\" (groups=[\"dev\" \"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n"+
		"{APIGroups:[\"authorization.k8s.io\"], Resources:[\"localsubjectaccessreviews\"], Verbs:[\"create\"]}\n"+
		"{APIGroups:[\"rbac.authorization.k8s.io\"], Resources:[\"rolebindings\"], Verbs:[\"delete\" \"deletecollection\" \"get\" \"list\" \"patch\" \"update\" \"watch\"]}\n"+
		"{APIGroups:[\"rbac.authorization.k8s.io\"], Resources:[\"roles\"], Verbs:[\"delete\" \"deletecollection\" \"get\" \"list\" \"patch\" \"update\" \"watch\"]}\n",
		as(a.alice, "create", "rolebinding", "alice-admin", "--clusterrole=admin", "--user=alice")...)
}
