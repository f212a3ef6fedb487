package main_test

// storage.k8s.io/v1 VolumeAttributesClasses, certificates.k8s.io/v1
// CertificateSigningRequests and networking.k8s.io/v1 ServiceCIDRs and
// IPAddresses through the real kubectl 1.27 and 1.33 and the real ch01
// binary. The expected texts are a real v1.35 apiserver's (the compare
// scenarios ch01-storage-certificates and ch01-servicecidrs check the same
// against the recorded outputs of a real cluster). Addresses 10.x other than
// 10.96.0.1 read <ip> after normalize.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVolumeAttributesClassesAndCSRs(t *testing.T) {
	for _, v := range []string{"1.27", "1.33"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			k := newKube(t, v)
			t.Parallel()
			k.volumeAttributesClasses()
			k.certificateSigningRequests()
			k.serviceCIDRsAndIPAddresses()
		})
	}
}

func (k *kube) volumeAttributesClasses() {
	k.write("vac.yaml", `apiVersion: storage.k8s.io/v1
kind: VolumeAttributesClass
metadata:
  name: gold
driverName: pd.csi.storage.gke.io
parameters: {iops: "3000", throughput: "50"}
`)
	k.ok("volumeattributesclass.storage.k8s.io/gold created\n", "create", "-f", "vac.yaml")
	k.table("NAME DRIVERNAME AGE\ngold pd.csi.storage.gke.io <age>", "get", "vac")
	// The StorageObjectInUseProtection admission plugin's finalizer.
	k.ok(`["kubernetes.io/vac-protection"]`, "get", "volumeattributesclass", "gold", "-o", "jsonpath={.metadata.finalizers}")
	k.fails(`The VolumeAttributesClass "gold" is invalid: 
* driverName: Forbidden: updates to driverName are forbidden.
* parameters: Forbidden: updates to parameters are forbidden.
`, "patch", "vac", "gold", "--type=merge", "-p", `{"driverName":"x.y","parameters":{"iops":"1"}}`)
	k.write("bad-vac.yaml", `apiVersion: storage.k8s.io/v1
kind: VolumeAttributesClass
metadata:
  name: Bad_Name
driverName: "not a driver!"
`)
	k.fails(`The VolumeAttributesClass "Bad_Name" is invalid: 
* metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
* driverName: Invalid value: "not a driver!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')
* parameters: Required value: must contain at least one key/value pair
`, "create", "-f", "bad-vac.yaml")
	k.write("empty-vac.yaml", "apiVersion: storage.k8s.io/v1\nkind: VolumeAttributesClass\nmetadata: {name: empty}\ndriverName: \"\"\nparameters: {\"\": v}\n")
	k.fails(`The VolumeAttributesClass "empty" is invalid: 
* driverName: Required value
* parameters: Invalid value: "": field can not be empty.
`, "create", "-f", "empty-vac.yaml")

	// Deleted, the class stays until its finalizer goes; a new one of the
	// same name is refused meanwhile, with upstream's words.
	k.ok("volumeattributesclass.storage.k8s.io \"gold\" deleted\n", "delete", "vac", "gold", "--wait=false")
	k.fails("Error from server (AlreadyExists): error when creating \"vac.yaml\": object is being deleted: volumeattributesclasses.storage.k8s.io \"gold\" already exists\n",
		"create", "-f", "vac.yaml")
	k.ok("volumeattributesclass.storage.k8s.io/gold patched\n", "patch", "vac", "gold", "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
	k.fails("Error from server (NotFound): volumeattributesclasses.storage.k8s.io \"gold\" not found\n", "get", "vac", "gold")
}

// newCSR is a PEM certificate request for CN=cn, O=org, signed by a new P-256 key.
func newCSR(t *testing.T, cn, org string) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: []string{org}}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
}

func (k *kube) certificateSigningRequests() {
	t := k.t
	request := newCSR(t, "alice", "dev")
	csr := func(name, extra string) string {
		return "apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: " + name +
			"\nspec:\n  request: " + request + "\n  signerName: kubernetes.io/kube-apiserver-client\n  usages: [client auth]\n" + extra
	}
	// The requester is whoever creates it, whatever the manifest says.
	k.write("alice.yaml", csr("alice", "  expirationSeconds: 86400\n  username: someone-else\n  groups: [fake]\n"))
	k.write("bob.yaml", csr("bob", ""))
	k.write("carol.yaml", csr("carol", "  expirationSeconds: 600\n"))
	for _, name := range []string{"alice", "bob", "carol"} {
		k.ok("certificatesigningrequest.certificates.k8s.io/"+name+" created\n", "create", "-f", name+".yaml")
	}
	k.table(`NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION
alice <age> kubernetes.io/kube-apiserver-client kubernetes-admin 24h Pending
bob <age> kubernetes.io/kube-apiserver-client kubernetes-admin <none> Pending
carol <age> kubernetes.io/kube-apiserver-client kubernetes-admin 10m Pending`, "get", "csr")
	k.ok(`kubernetes-admin ["system:masters","system:authenticated"] {}`, "get", "csr", "alice", "-o", "jsonpath={.spec.username} {.spec.groups} {.status}")

	k.write("bad.yaml", `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: bad}
spec:
  request: bm90IGEgcGVt
  signerName: kubernetes.io
  expirationSeconds: 100
  usages: [client auth, bogus, client auth]
`)
	k.fails(`The CertificateSigningRequest "bad" is invalid: 
* spec.request: Invalid value: "bm90IGEgcGVt": PEM block type must be CERTIFICATE REQUEST
* spec.usages[1]: Unsupported value: "bogus": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"
* spec.usages[2]: Duplicate value: "client auth"
* spec.signerName: Invalid value: "kubernetes.io": must be a fully qualified domain and path of the form 'example.com/signer-name'
* spec.expirationSeconds: Invalid value: 100: may not specify a duration less than 600 seconds (10 minutes)
`, "create", "-f", "bad.yaml")
	k.write("legacy.yaml", "apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata: {name: legacy}\nspec:\n  request: "+request+
		"\n  signerName: kubernetes.io/legacy-unknown\n")
	k.fails(`The CertificateSigningRequest "legacy" is invalid: 
* spec.usages: Required value
* spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version
`, "create", "-f", "legacy.yaml")
	k.write("masters.yaml", "apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata: {name: mallory}\nspec:\n  request: "+
		newCSR(t, "mallory", "system:masters")+"\n  signerName: kubernetes.io/kube-apiserver-client\n  usages: [client auth]\n")
	k.fails("Error from server (Forbidden): error when creating \"masters.yaml\": certificatesigningrequests.certificates.k8s.io \"mallory\" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed\n",
		"create", "-f", "masters.yaml")

	// kubectl certificate approve and deny write /approval (in protobuf).
	k.ok("certificatesigningrequest.certificates.k8s.io/alice approved\n", "certificate", "approve", "alice")
	k.ok("certificatesigningrequest.certificates.k8s.io/alice approved\n", "certificate", "approve", "alice")
	k.fails("error: certificate signing request \"alice\" is already Approved\n", "certificate", "deny", "alice")
	k.ok("certificatesigningrequest.certificates.k8s.io/bob denied\n", "certificate", "deny", "bob")
	k.fails("Error from server (NotFound): certificatesigningrequests.certificates.k8s.io \"nope\" not found\n", "certificate", "approve", "nope")
	k.ok("Approved KubectlApprove This CSR was approved by kubectl certificate approve.", "get", "csr", "alice", "-o",
		"jsonpath={.status.conditions[*].type} {.status.conditions[*].reason} {.status.conditions[*].message}")

	// /status may add Failed and the certificate, not Approved; /approval
	// only True conditions; nobody removes one.
	k.ok("certificatesigningrequest.certificates.k8s.io/carol patched\n", "patch", "csr", "carol", "--subresource=status", "--type=merge",
		"-p", `{"status":{"conditions":[{"type":"Failed","status":"True","reason":"SignerFailed","message":"boom"}]}}`)
	k.fails(`The CertificateSigningRequest "carol" is invalid: 
* status.conditions: Forbidden: updates may not remove a condition of type "Failed"
* status.conditions: Forbidden: updates may not add a condition of type "Approved"
`, "patch", "csr", "carol", "--subresource=status", "--type=merge", "-p", `{"status":{"conditions":[{"type":"Approved","status":"True"}]}}`)
	// (kubectl 1.27 knows only the status and scale subresources.)
	noApproval := "error: invalid subresource value: \"approval\". Must be one of [status scale]\n"
	k.fails(k.pick(noApproval, `The CertificateSigningRequest "carol" is invalid: status.conditions[1].status: Unsupported value: "False": supported values: "True"
`), "patch", "csr", "carol", "--subresource=approval", "--type=json", "-p", `[{"op":"add","path":"/status/conditions/-","value":{"type":"Approved","status":"False"}}]`)
	k.fails(k.pick(noApproval, `The CertificateSigningRequest "carol" is invalid: status.conditions: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive
`), "patch", "csr", "carol", "--subresource=approval", "--type=json", "-p",
		`[{"op":"add","path":"/status/conditions/-","value":{"type":"Approved","status":"True"}},{"op":"add","path":"/status/conditions/-","value":{"type":"Denied","status":"True"}}]`)
	// The main resource changes only the metadata.
	k.ok("certificatesigningrequest.certificates.k8s.io/carol patched\n", "patch", "csr", "carol", "--type=merge",
		"-p", `{"spec":{"signerName":"example.com/x"},"metadata":{"labels":{"a":"b"}}}`)
	k.ok(`kubernetes.io/kube-apiserver-client {"a":"b"} Failed`, "get", "csr", "carol", "-o", "jsonpath={.spec.signerName} {.metadata.labels} {.status.conditions[*].type}")
	k.fails(`The CertificateSigningRequest "carol" is invalid: status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block
`, "patch", "csr", "carol", "--subresource=status", "--type=merge", "-p", `{"status":{"certificate":"bm90"}}`)

	// Approving and signing need the verb on the signer, beyond the write itself.
	k.ok("clusterrole.rbac.authorization.k8s.io/csr-editor created\n", "create", "clusterrole", "csr-editor", "--verb=get,list,update,patch",
		"--resource=certificatesigningrequests,certificatesigningrequests/approval,certificatesigningrequests/status")
	k.ok("clusterrolebinding.rbac.authorization.k8s.io/csr-editor created\n", "create", "clusterrolebinding", "csr-editor", "--clusterrole=csr-editor", "--user=eve")
	k.fails("Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io \"carol\" is forbidden: user not permitted to approve requests with signerName \"kubernetes.io/kube-apiserver-client\"\n",
		"certificate", "approve", "carol", "--as=eve")
	ca, err := os.ReadFile(filepath.Join(k.c.DataDir, "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	certPatch := `{"status":{"certificate":"` + base64.StdEncoding.EncodeToString(ca) + `"}}`
	k.fails("Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io \"alice\" is forbidden: user not permitted to sign requests with signerName \"kubernetes.io/kube-apiserver-client\"\n",
		"patch", "csr", "alice", "--subresource=status", "--type=merge", "-p", certPatch, "--as=eve")
	k.ok("certificatesigningrequest.certificates.k8s.io/alice patched\n", "patch", "csr", "alice", "--subresource=status", "--type=merge", "-p", certPatch)
	k.table("NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION\nalice <age> kubernetes.io/kube-apiserver-client kubernetes-admin 24h Approved,Issued", "get", "csr", "alice")

	k.ok("certificatesigningrequest.certificates.k8s.io/alice\ncertificatesigningrequest.certificates.k8s.io/bob\ncertificatesigningrequest.certificates.k8s.io/carol\n",
		"get", "csr", "--field-selector", "spec.signerName=kubernetes.io/kube-apiserver-client", "-o", "name")
	describe := k.run("describe", "csr", "carol").Stdout
	for _, want := range []string{"Requesting User:     kubernetes-admin\n", "Requested Duration:  10m\n", "Status:              Pending,Failed\n",
		"         Common Name:    alice\n", "         Organization:   dev\n"} {
		if !strings.Contains(describe, want) {
			t.Errorf("kubectl describe csr carol lacks %q:\n%s", want, describe)
		}
	}
	k.ok("certificatesigningrequest.certificates.k8s.io \"alice\" deleted\n", "delete", "csr", "alice")
}

func (k *kube) serviceCIDRsAndIPAddresses() {
	t := k.t
	// The apiserver's default ServiceCIDR, from --service-cluster-ip-range, Ready.
	k.table("NAME CIDRS AGE\nkubernetes <ip>/12 <age>", "get", "servicecidr")
	k.ok("Ready True Kubernetes default Service CIDR is ready", "get", "servicecidr", "kubernetes", "-o",
		"jsonpath={.status.conditions[0].type} {.status.conditions[0].status} {.status.conditions[0].message}")
	// One IPAddress per allocated ClusterIP, named by the IP, its parent the Service.
	k.ok("service/pinned created\n", "create", "service", "clusterip", "pinned", "--tcp=80", "--clusterip=10.96.100.100")
	k.table("NAME PARENTREF\n10.96.0.1 services/default/kubernetes\n<ip> services/default/pinned", "get", "ipaddresses")
	if out := k.run("get", "ip", "10.96.100.100", "-o", "jsonpath={.metadata.labels} {.spec}").Stdout; out !=
		`{"ipaddress.kubernetes.io/ip-family":"IPv4","ipaddress.kubernetes.io/managed-by":"ipallocator.k8s.io"} {"parentRef":{"name":"pinned","namespace":"default","resource":"services"}}` {
		t.Errorf("the IPAddress of 10.96.100.100: %s", out)
	}
	k.ok("service/np created\n", "create", "service", "nodeport", "np", "--tcp=80")
	k.ok("3\n", "get", "ipaddresses", "-l", "ipaddress.kubernetes.io/managed-by=ipallocator.k8s.io", "-o", "go-template={{len .items}}{{\"\\n\"}}")
	// Becoming an ExternalName, deleted: the address goes with it.
	k.ok("service/np patched\n", "patch", "service", "np", "--type=merge", "-p", `{"spec":{"type":"ExternalName","externalName":"x.example.com"}}`)
	k.ok("service \"pinned\" deleted\nservice \"np\" deleted\n", "delete", "service", "pinned", "np")
	k.table("NAME PARENTREF\n10.96.0.1 services/default/kubernetes", "get", "ipaddresses")

	// An address held by an IPAddress is taken; a ServiceCIDR adds a range.
	k.write("ghost.yaml", "apiVersion: networking.k8s.io/v1\nkind: IPAddress\nmetadata: {name: 10.96.0.50}\nspec: {parentRef: {resource: services, namespace: default, name: ghost}}\n")
	k.ok("ipaddress.networking.k8s.io/<ip> created\n", "create", "-f", "ghost.yaml")
	k.fails("error: failed to create ClusterIP service: Service \"takes50\" is invalid: spec.clusterIPs: Invalid value: [\"<ip>\"]: failed to allocate IP <ip>: provided IP is already allocated\n",
		"create", "service", "clusterip", "takes50", "--tcp=80", "--clusterip=10.96.0.50")
	k.write("extra.yaml", "apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata: {name: extra}\nspec: {cidrs: [10.250.0.0/24]}\n")
	k.ok("servicecidr.networking.k8s.io/extra created\n", "create", "-f", "extra.yaml")
	k.ok("service/outside created\n", "create", "service", "clusterip", "outside", "--tcp=80", "--clusterip=10.250.0.10")
	k.fails("The ServiceCIDR \"extra\" is invalid: spec.cidrs[0]: Invalid value: \"<ip>/24\": field is immutable\n",
		"patch", "servicecidr", "extra", "--type=merge", "-p", `{"spec":{"cidrs":["10.251.0.0/24"]}}`)
	k.ok("servicecidr.networking.k8s.io/extra patched\n", "patch", "servicecidr", "extra", "--type=merge", "-p", `{"spec":{"cidrs":["10.250.0.0/24","fd00::/108"]}}`)
	k.fails("The IPAddress \"10.96.0.1\" is invalid: spec.parentRef: Invalid value: {\"Group\":\"\",\"Resource\":\"services\",\"Namespace\":\"default\",\"Name\":\"other\"}: field is immutable\n",
		"patch", "ipaddress", "10.96.0.1", "--type=merge", "-p", `{"spec":{"parentRef":{"name":"other"}}}`)

	k.write("bad-ip.yaml", "apiVersion: networking.k8s.io/v1\nkind: IPAddress\nmetadata: {name: \"2001:db8:0::1\"}\n"+
		"spec: {parentRef: {group: Bad_G, resource: a/b, name: \"x%y\", namespace: \"..\"}}\n")
	k.fails(`The IPAddress "2001:db8:0::1" is invalid: 
* metadata.name: Invalid value: "2001:db8:0::1": must be in canonical form ("2001:db8::1")
* spec.parentRef.group: Invalid value: "Bad_G": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
* spec.parentRef.resource: Invalid value: "a/b": may not contain '/'
* spec.parentRef.name: Invalid value: "x%y": may not contain '%'
* spec.parentRef.namespace: Invalid value: "..": may not be '..'
`, "create", "-f", "bad-ip.yaml")
	k.write("bad-cidr.yaml", "apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata: {name: b}\nspec: {cidrs: [10.0.0.0/24, 10.1.0.0/24, 10.2.0.0/24]}\n")
	k.fails(`The ServiceCIDR "b" is invalid: spec.cidrs: Invalid value: {"CIDRs":["<ip>/24","<ip>/24","<ip>/24"]}: may only hold up to 2 values
`, "create", "-f", "bad-cidr.yaml")
	k.write("bad-cidr2.yaml", "apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata: {name: e}\nspec: {cidrs: [10.0.0.1/24]}\n")
	k.fails(`The ServiceCIDR "e" is invalid: spec.cidrs[0]: Invalid value: "<ip>/24": must not have bits set beyond the prefix length
`, "create", "-f", "bad-cidr2.yaml")
	k.ok("service \"outside\" deleted\n", "delete", "service", "outside")
	k.ok("servicecidr.networking.k8s.io \"extra\" deleted\n", "delete", "servicecidr", "extra")
}
