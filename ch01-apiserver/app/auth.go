package app

import (
	"crypto"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/apiserver"
	"kubik/ch01-apiserver/pki"
)

// stringList is a repeatable flag that also accepts comma-separated values.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

const defaultAuthorizationMode = "Node,RBAC"

// addAuthFlags registers upstream's authentication and authorization flags.
func (o *Options) addAuthFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.AuthorizationMode, "authorization-mode", defaultAuthorizationMode,
		"comma-separated authorizers asked in order: Node, RBAC, AlwaysAllow, AlwaysDeny")
	fs.BoolFunc("anonymous-auth",
		"requests without credentials go on as system:anonymous (group system:unauthenticated), which the authorizers then judge; false: 401 (default true)",
		func(v string) error {
			allow, err := strconv.ParseBool(v)
			o.DisableAnonymousAuth = !allow
			return err
		})
	fs.StringVar(&o.TokenAuthFile, "token-auth-file", "",
		`CSV file of static bearer tokens: token,user,uid,"group1,group2"`)
	fs.Var(&o.ServiceAccountKeyFiles, "service-account-key-file",
		"PEM file(s) of public keys that verify ServiceAccount tokens (repeatable; default: the signing key's)")
	fs.StringVar(&o.ServiceAccountSigningKeyFile, "service-account-signing-key-file", "",
		"PEM private key that signs ServiceAccount tokens (default: DATA_DIR/pki/sa.key, created if missing)")
	fs.StringVar(&o.ServiceAccountIssuer, "service-account-issuer", apiserver.DefaultServiceAccountIssuer,
		`the "iss" of ServiceAccount tokens`)
	fs.StringVar(&o.ServiceAccountJWKSURI, "service-account-jwks-uri", "",
		"the jwks_uri in the issuer's discovery document, /.well-known/openid-configuration (default: this apiserver's /openid/v1/jwks)")
	fs.StringVar(&o.APIAudiences, "api-audiences", "",
		"comma-separated audiences the apiserver accepts in tokens (default: the issuer)")
}

// authConfig fills the authentication and authorization part of cfg.
func (o *Options) authConfig(cfg *apiserver.Config) error {
	mode := o.AuthorizationMode
	if mode == "" {
		mode = defaultAuthorizationMode // Options built without AddFlags get the flag's default
	}
	for _, m := range strings.Split(mode, ",") {
		if m = strings.TrimSpace(m); m != "" {
			cfg.AuthorizationModes = append(cfg.AuthorizationModes, m)
		}
	}
	if o.TokenAuthFile != "" {
		tf, err := apiserver.NewTokenFile(o.TokenAuthFile)
		if err != nil {
			return fmt.Errorf("--token-auth-file: %w", err)
		}
		cfg.TokenAuthenticators = append(cfg.TokenAuthenticators, tf)
	}
	var signer crypto.Signer
	var err error
	if o.ServiceAccountSigningKeyFile != "" {
		signer, err = pki.ReadSigningKey(o.ServiceAccountSigningKeyFile)
		if err != nil {
			return fmt.Errorf("--service-account-signing-key-file: %w", err)
		}
	} else if o.externalPKI() {
		return errors.New("--service-account-signing-key-file is required with --tls-cert-file (every apiserver of a cluster signs with the same key)")
	} else if signer, err = pki.EnsureServiceAccountKey(o.DataDir); err != nil {
		return err
	}
	cfg.ServiceAccountSigningKey = signer
	for _, f := range o.ServiceAccountKeyFiles {
		keys, err := pki.ReadPublicKeys(f)
		if err != nil {
			return fmt.Errorf("--service-account-key-file: %w", err)
		}
		cfg.ServiceAccountKeys = append(cfg.ServiceAccountKeys, keys...)
	}
	cfg.DisableAnonymous = o.DisableAnonymousAuth
	cfg.ServiceAccountIssuer = o.ServiceAccountIssuer
	cfg.ServiceAccountJWKSURI = o.ServiceAccountJWKSURI
	for _, a := range strings.Split(o.APIAudiences, ",") {
		if a = strings.TrimSpace(a); a != "" {
			cfg.APIAudiences = append(cfg.APIAudiences, a)
		}
	}
	return nil
}

// KubeconfigCommand is "kubik kubeconfig": it issues, from the cluster CA in
// --data-dir, a client certificate and a kubeconfig for a user or a
// component, e.g.
//
//	kubeconfig --data-dir .kubik --user alice --group dev --out alice.kubeconfig
//	kubeconfig --data-dir .kubik --component node:node-1 --out node-1.kubeconfig
//
// The server URL is taken from DATA_DIR/admin.kubeconfig unless --server
// says otherwise. It returns the process exit code.
func KubeconfigCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kubeconfig", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", ".kubik", "the apiserver's data dir (its pki/ca.crt and ca.key sign the certificate)")
	user := fs.String("user", "", "user name (the certificate's CommonName)")
	var groups stringList
	fs.Var(&groups, "group", "group (the certificate's Organization); repeatable")
	component := fs.String("component", "", "instead of --user: admin, kube-scheduler, kube-controller-manager, kube-proxy or node:<name>")
	server := fs.String("server", "", "the apiserver URL (default: the one in DATA_DIR/admin.kubeconfig)")
	out := fs.String("out", "", "where to write the kubeconfig (default: DATA_DIR/<user>.kubeconfig)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "kubeconfig:", err)
		return 1
	}
	var id pki.Identity
	switch {
	case *component != "" && *user != "":
		return fail(errors.New("--user and --component are mutually exclusive"))
	case *component != "":
		var err error
		if id, err = pki.ComponentIdentity(*component); err != nil {
			return fail(err)
		}
	case *user != "":
		id = pki.Identity{User: *user, Groups: groups}
	default:
		return fail(errors.New("--user or --component is required"))
	}
	if _, err := os.Stat(filepath.Join(pki.Dir(*dataDir), pki.CAKeyFile)); err != nil {
		return fail(fmt.Errorf("no cluster CA in %s (start the apiserver with --data-dir %s first): %w", pki.Dir(*dataDir), *dataDir, err))
	}
	ca, err := pki.EnsureCA(*dataDir)
	if err != nil {
		return fail(err)
	}
	if *server == "" {
		k, err := pki.LoadKubeconfig(filepath.Join(*dataDir, "admin.kubeconfig"))
		if err != nil {
			return fail(fmt.Errorf("--server not given and no admin kubeconfig to take it from: %w", err))
		}
		*server = k.Server
	}
	path := *out
	if path == "" {
		path = filepath.Join(*dataDir, strings.ReplaceAll(id.User, ":", "-")+".kubeconfig")
	}
	if err := ca.WriteIdentityKubeconfig(path, *server, id); err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "wrote %s for user %q", path, id.User)
	if len(id.Groups) > 0 {
		fmt.Fprintf(stdout, " in groups %q", id.Groups)
	}
	fmt.Fprintln(stdout)
	return 0
}
