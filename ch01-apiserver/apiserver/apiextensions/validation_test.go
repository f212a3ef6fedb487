package apiextensions

import (
	"strings"
	"testing"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/apiserver/serializer"
	"kubik/ch01-apiserver/apiserver/validation"
)

// decodeCRD reads a CRD manifest in YAML and applies the v1 defaults.
func decodeCRD(t testing.TB, manifest string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := serializer.YAMLToJSON([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if _, err := serializer.DecodeStrict(data, crd); err != nil {
		t.Fatal(err)
	}
	SetDefaults(crd)
	if v := apiextensionsv1.StorageVersion(crd); v != "" {
		crd.Status.StoredVersions = []string{v}
	}
	return crd
}

const crdHeader = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: foos.example.com}
spec:
  group: example.com
  names: {plural: foos, kind: Foo}
  scope: Namespaced
`

// The messages are those of kube-apiserver v1.35.4 for the same manifests.
func TestValidateCustomResourceDefinition(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		want     []string
	}{{
		name: "names, group, scope and versions",
		manifest: `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: foos.bar}
spec:
  group: example
  names: {plural: Foos, kind: foo_x, shortNames: [F1], listKind: foo_x}
  scope: Global
  versions:
  - {name: V1, served: false, storage: false}
  - {name: V1, served: false, storage: false}
`,
		want: []string{
			`metadata.name: Invalid value: "foos.bar": must be spec.names.plural+"."+spec.group`,
			`spec.group: Invalid value: "example": should be a domain with at least one dot`,
			`spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"`,
			`spec.versions[0].schema.openAPIV3Schema: Required value`,
			`spec.versions[1].schema.openAPIV3Schema: Required value`,
			`spec.versions[0].name: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
			`spec.versions[1].name: Invalid value: "V1": a DNS-1035 label must consist`,
			`spec.versions: Invalid value: [{"Name":"V1","Served":false,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},{"Name":"V1","Served":false,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must contain unique version names`,
			`must have exactly one version marked as storage version`,
			`spec.version: Invalid value: "V1": a DNS-1035 label must consist`,
			`spec.names.plural: Invalid value: "Foos": a DNS-1035 label must consist`,
			`spec.names.singular: Invalid value: "foo_x": a DNS-1035 label must consist`,
			`spec.names.kind: Invalid value: "foo_x": may have mixed case, but should otherwise match: a DNS-1035 label`,
			`spec.names.listKind: Invalid value: "foo_x": may have mixed case, but should otherwise match: a DNS-1035 label`,
			`spec.names.shortNames[0]: Invalid value: "F1": a DNS-1035 label`,
			`spec.names.listKind: Invalid value: "foo_x": kind and listKind may not be the same`,
			`status.storedVersions: Invalid value: null: must have at least one stored version`,
		},
	}, {
		name: "no versions",
		manifest: crdHeader + `  versions: []
`,
		want: []string{
			`spec.versions: Invalid value: []: must have exactly one version marked as storage version`,
			`status.storedVersions: Invalid value: null: must have at least one stored version`,
		},
	}, {
		name: "schema not structural",
		manifest: crdHeader + `  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            properties:
              a: {type: string}
            additionalProperties: {type: string}
          metadata:
            type: object
            properties:
              labels: {type: object}
          list:
            type: array
          "n":
            type: number
            uniqueItems: true
            anyOf:
            - type: string
            - description: x
`,
		want: []string{
			// the structural errors, sorted as upstream sorts them
			`spec.validation.openAPIV3Schema.properties[list].items: Required value: must be specified`,
			`spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
			`spec.validation.openAPIV3Schema.properties[n].anyOf[0].type: Forbidden: must be empty to be structural`,
			`spec.validation.openAPIV3Schema.properties[n].anyOf[1].description: Forbidden: must be empty to be structural`,
			`spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields`,
			// then the others (upstream: in map order; here by property name)
			`spec.validation.openAPIV3Schema.properties[n].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
			`spec.validation.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
		},
	}, {
		name: "unsupported schema keywords",
		manifest: crdHeader + `  preserveUnknownFields: true
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: string
        x-kubernetes-preserve-unknown-fields: false
        additionalProperties: {type: string}
        $ref: "#/x"
`,
		want: []string{
			`spec.validation.openAPIV3Schema.$ref: Forbidden: $ref is not supported`,
			`spec.validation.openAPIV3Schema.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
			`spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead`,
		},
	}, {
		name: "two versions, two schemas: per-version paths",
		manifest: crdHeader + `  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-embedded-resource: true
`,
		want: []string{
			`spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields`,
			`spec.versions[1].schema.openAPIV3Schema.properties[spec].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := ValidateCustomResourceDefinition(decodeCRD(t, tt.manifest))
			got := make([]string, len(errs))
			for i, e := range errs {
				got[i] = e.Error()
			}
			if len(got) != len(tt.want) {
				t.Errorf("got %d errors, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i := range tt.want {
				if i < len(got) && !strings.HasPrefix(got[i], tt.want[i]) && !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("error %d:\n got  %s\n want %s", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestValidCRDHasNoErrors(t *testing.T) {
	crd := decodeCRD(t, widgetCRD)
	if errs := ValidateCustomResourceDefinition(crd); len(errs) > 0 {
		t.Fatalf("unexpected errors: %s", validation.AggregateMessage(errs))
	}
	if crd.Spec.Names.Singular != "widget" || crd.Spec.Names.ListKind != "WidgetList" || crd.Spec.Conversion.Strategy != "None" {
		t.Errorf("defaults: %+v %+v", crd.Spec.Names, crd.Spec.Conversion)
	}
}

func TestCompareKubeAwareVersionStrings(t *testing.T) {
	want := []string{"v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1", "v11alpha2", "foo1", "foo10"}
	for i := 0; i+1 < len(want); i++ {
		if CompareKubeAwareVersionStrings(want[i], want[i+1]) <= 0 {
			t.Errorf("%s should sort before %s", want[i], want[i+1])
		}
	}
}

func TestAPIApproval(t *testing.T) {
	crd := decodeCRD(t, strings.ReplaceAll(widgetCRD, "example.com", "x.k8s.io"))
	errs := ValidateCustomResourceDefinition(crd)
	want := `metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("got %v, want %s", errs, want)
	}
	for value, reason := range map[string]string{
		"https://github.com/kubernetes-sigs/gateway-api/pull/2466": "ApprovedAnnotation",
		"unapproved, experimental":                                 "UnapprovedAnnotation",
		"maybe":                                                    "InvalidAnnotation",
	} {
		crd.Annotations = map[string]string{KubeAPIApprovedAnnotation: value}
		if c := APIApprovalCondition(crd); c == nil || c.Reason != reason {
			t.Errorf("%s: condition %+v, want reason %s", value, c, reason)
		}
	}
	crd.Annotations = map[string]string{KubeAPIApprovedAnnotation: "maybe"}
	if errs := ValidateCustomResourceDefinition(crd); len(errs) != 1 || !strings.Contains(errs[0].Error(), `Invalid value: "maybe": protected groups must have approval annotation`) {
		t.Errorf("invalid annotation: %v", errs)
	}
}
