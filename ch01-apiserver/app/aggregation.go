package app

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"os"

	"kubik/ch01-apiserver/apiserver"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/pki"
)

// addAggregationFlags registers upstream's flags of API aggregation: who
// may act as a front proxy (--requestheader-*), the apiserver's own
// front-proxy identity (--proxy-client-*), and how a Service in front of
// an extension apiserver is called (--enable-aggregator-routing).
func (o *Options) addAggregationFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.RequestHeaderClientCAFile, "requestheader-client-ca-file", o.RequestHeaderClientCAFile,
		"PEM bundle of the CAs whose client certificates may name the user in the --requestheader-username-headers (default: the front-proxy CA in --data-dir, made like kubeadm's)")
	fs.Var(&o.RequestHeaderAllowedNames, "requestheader-allowed-names",
		"common names a front proxy's client certificate may have (empty: any the CA signed; default with the generated PKI: front-proxy-client)")
	fs.Var(&o.RequestHeaderUsernameHeaders, "requestheader-username-headers", "request headers to read the user name from, first one set wins (default with the generated PKI: X-Remote-User)")
	fs.Var(&o.RequestHeaderUIDHeaders, "requestheader-uid-headers", "request headers to read the user's UID from")
	fs.Var(&o.RequestHeaderGroupHeaders, "requestheader-group-headers", "request headers to read the groups from (default with the generated PKI: X-Remote-Group)")
	fs.Var(&o.RequestHeaderExtraHeadersPrefix, "requestheader-extra-headers-prefix", "prefixes of the request headers carrying the user's extra (default with the generated PKI: X-Remote-Extra-)")
	fs.StringVar(&o.ProxyClientCertFile, "proxy-client-cert-file", o.ProxyClientCertFile,
		"client certificate the apiserver presents to extension apiservers (default: front-proxy-client, issued by the front-proxy CA in --data-dir)")
	fs.StringVar(&o.ProxyClientKeyFile, "proxy-client-key-file", o.ProxyClientKeyFile, "the key of --proxy-client-cert-file")
	fs.BoolVar(&o.EnableAggregatorRouting, "enable-aggregator-routing", o.EnableAggregatorRouting,
		"call an extension apiserver at a ready endpoint of its Service's EndpointSlices instead of the Service's ClusterIP")
}

// frontProxyGiven reports whether any front-proxy flag was set.
func (o *Options) frontProxyGiven() bool {
	return o.RequestHeaderClientCAFile != "" || o.ProxyClientCertFile != "" || o.ProxyClientKeyFile != "" ||
		len(o.RequestHeaderAllowedNames) > 0 || len(o.RequestHeaderUsernameHeaders) > 0 ||
		len(o.RequestHeaderGroupHeaders) > 0 || len(o.RequestHeaderExtraHeadersPrefix) > 0
}

// aggregationConfig fills cfg's aggregation part. With no front-proxy flag
// and the PKI in --data-dir, the front proxy's PKI is made there as kubeadm
// makes it, with kubeadm's flags (X-Remote-User, X-Remote-Group,
// X-Remote-Extra-, allowed name front-proxy-client). With certificates
// made elsewhere and no such flag there is no front proxy, as upstream.
func (o *Options) aggregationConfig(cfg *apiserver.Config, certs *servingCerts) error {
	cfg.ClientCAPEM = certs.clientCAPEM
	cfg.EnableAggregatorRouting = o.EnableAggregatorRouting
	caFile, certFile, keyFile := o.RequestHeaderClientCAFile, o.ProxyClientCertFile, o.ProxyClientKeyFile
	rh := &auth.RequestHeader{AllowedNames: o.RequestHeaderAllowedNames, UsernameHeaders: o.RequestHeaderUsernameHeaders,
		UIDHeaders: o.RequestHeaderUIDHeaders, GroupHeaders: o.RequestHeaderGroupHeaders, ExtraHeaderPrefixes: o.RequestHeaderExtraHeadersPrefix}
	if !o.frontProxyGiven() {
		if certs.ca == nil {
			return nil
		}
		fp, err := pki.EnsureFrontProxy(o.DataDir)
		if err != nil {
			return err
		}
		caFile, certFile, keyFile = fp.CACertFile, fp.ClientCertFile, fp.KeyFile
		rh.AllowedNames = []string{pki.FrontProxyClientName}
		rh.UsernameHeaders = []string{"X-Remote-User"}
		rh.GroupHeaders = []string{"X-Remote-Group"}
		rh.ExtraHeaderPrefixes = []string{"X-Remote-Extra-"}
	}
	if (certFile == "") != (keyFile == "") {
		return errors.New("--proxy-client-cert-file and --proxy-client-key-file go together")
	}
	if certFile != "" {
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return fmt.Errorf("--proxy-client-cert-file: %w", err)
		}
		cfg.ProxyClientCert = &pair
	}
	if caFile != "" {
		pool, err := readCAFile(caFile)
		if err != nil {
			return fmt.Errorf("--requestheader-client-ca-file: %w", err)
		}
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return err
		}
		rh.CA = pool
		cfg.RequestHeader, cfg.RequestHeaderCAPEM = rh, pem
	}
	return nil
}
