package policy

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/admissionv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/webhook"
)

// testPolicy is a policy on apps/v1 deployments with the given spec parts.
func testPolicy(t *testing.T, spec string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	t.Helper()
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	doc := `{"metadata":{"name":"p"},"spec":{"failurePolicy":"Fail","matchConstraints":{"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},
		"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["deployments"]}]},` + spec + `}}`
	if err := json.Unmarshal([]byte(doc), p); err != nil {
		t.Fatalf("policy %s: %v", doc, err)
	}
	return p
}

func testBinding(actions string, paramRef string) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	doc := `{"metadata":{"name":"b"},"spec":{"policyName":"p","validationActions":` + actions
	if paramRef != "" {
		doc += `,"paramRef":` + paramRef
	}
	if err := json.Unmarshal([]byte(doc+`}}`), b); err != nil {
		panic(err)
	}
	return b
}

func deployment(replicas int) *webhook.Attributes {
	obj := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},"spec":{"replicas":` +
		strings.TrimSpace(json.Number(itoa(replicas)).String()) + `}}`
	return &webhook.Attributes{
		Kind:     admissionv1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Resource: admissionv1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		Name:     "web", Namespace: "default", Operation: admissionv1.Create, Object: []byte(obj),
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

type recorder struct {
	warnings    []string
	annotations map[string]string
}

func testDispatcher(p *admissionregistrationv1.ValidatingAdmissionPolicy, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, params map[string]string, rec *recorder) *Dispatcher {
	s := NewSource(nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	s.policies[p.Name] = compilePolicy(p)
	s.bindings[b.Name] = b
	s.rebuildLocked()
	return NewDispatcher(s, Hooks{
		Namespace: func(ctx context.Context, name string) ([]byte, error) {
			return []byte(`{"metadata":{"name":"` + name + `","labels":{"env":"prod"}}}`), nil
		},
		Params: func(ctx context.Context, apiVersion, kind, namespace, name string, selector *metav1.LabelSelector) (ParamObjects, error) {
			if apiVersion != "v1" || kind != "ConfigMap" {
				return ParamObjects{}, nil
			}
			out := ParamObjects{Known: true, Namespaced: true}
			if o, ok := params[namespace+"/"+name]; ok {
				out.Objects = append(out.Objects, []byte(o))
			}
			return out, nil
		},
		Warn: func(ctx context.Context, text string) { rec.warnings = append(rec.warnings, text) },
		Annotate: func(ctx context.Context, key, value string) {
			if rec.annotations == nil {
				rec.annotations = map[string]string{}
			}
			rec.annotations[key] = value
		},
	}, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

func TestPolicies(t *testing.T) {
	limits := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"limits","namespace":"default"},"data":{"max":"3"}}`
	for _, tc := range []struct {
		name      string
		spec      string
		actions   string
		paramRef  string
		replicas  int
		wantErr   string
		wantCode  int32
		wantWarn  string
		wantAudit string
	}{
		{name: "allowed", spec: `"validations":[{"expression":"object.spec.replicas <= 5"}]`, replicas: 5},
		{name: "denied by expression", spec: `"validations":[{"expression":"object.spec.replicas <= 5"}]`, replicas: 6, wantCode: 422,
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: object.spec.replicas <= 5`},
		{name: "message and reason", spec: `"validations":[{"expression":"object.spec.replicas <= 5","message":"too many","reason":"Forbidden"}]`, replicas: 6, wantCode: 403,
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: too many`},
		{name: "messageExpression and variables",
			spec:     `"variables":[{"name":"r","expression":"object.spec.replicas"}],"validations":[{"expression":"variables.r <= 5","messageExpression":"'replicas ' + string(variables.r) + ' > 5'"}]`,
			replicas: 7, wantCode: 422,
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: replicas 7 > 5`},
		{name: "matchConditions false skip", spec: `"matchConditions":[{"name":"only-db","expression":"object.metadata.name == 'db'"}],"validations":[{"expression":"false"}]`, replicas: 1},
		{name: "namespaceObject", spec: `"validations":[{"expression":"namespaceObject.metadata.labels.env != 'prod'","message":"not in prod"}]`, replicas: 1, wantCode: 422,
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: not in prod`},
		{name: "request", spec: `"validations":[{"expression":"request.operation != 'CREATE'"}]`, replicas: 1, wantCode: 422,
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: request.operation != 'CREATE'`},
		{name: "request", spec: `"validations":[{"expression":"request.namespace == 'default' && !request.dryRun && request.kind.kind == 'Deployment' && !has(request.subResource)"}]`, replicas: 1},
		{name: "request without its empty fields", spec: `"validations":[{"expression":"request.subResource == ''"}]`, replicas: 1, wantCode: 422,
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'request.subResource == ''' resulted in error: no such key: subResource`},
		{name: "warn", spec: `"validations":[{"expression":"object.spec.replicas <= 5"}]`, actions: `["Warn"]`, replicas: 6,
			wantWarn: `Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': failed expression: object.spec.replicas <= 5`},
		{name: "audit", spec: `"validations":[{"expression":"object.spec.replicas <= 5"}]`, actions: `["Audit"]`, replicas: 6,
			wantAudit: `[{"binding":"b","expressionIndex":0,"message":"failed expression: object.spec.replicas \u003c= 5","policy":"p","validationActions":["Audit"]}]`},
		{name: "runtime error fails closed", spec: `"validations":[{"expression":"object.spec.missing > 1"}]`, replicas: 1, wantCode: 422,
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.spec.missing > 1' resulted in error: no such key: missing`},
		{name: "runtime error ignored", spec: `"failurePolicy":"Ignore","validations":[{"expression":"object.spec.missing > 1"}]`, replicas: 1},
		{name: "per-call cost limit",
			spec:     `"validations":[{"expression":"[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))"}]`,
			replicas: 1, wantCode: 422,
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))' resulted in error: operation cancelled: actual cost limit exceeded`},
		{name: "params from a ConfigMap", spec: `"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},"validations":[{"expression":"object.spec.replicas <= int(params.data.max)","messageExpression":"'at most ' + params.data.max"}]`,
			paramRef: `{"name":"limits","parameterNotFoundAction":"Deny"}`, replicas: 4, wantCode: 422,
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: at most 3`},
		{name: "missing param denied", spec: `"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},"validations":[{"expression":"true"}]`,
			paramRef: `{"name":"nope","parameterNotFoundAction":"Deny"}`, replicas: 1, wantCode: 422,
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with ` + "`Deny`" + ` parameterNotFoundAction`},
		{name: "missing param allowed", spec: `"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},"validations":[{"expression":"false"}]`,
			paramRef: `{"name":"nope","parameterNotFoundAction":"Allow"}`, replicas: 1},
		{name: "unknown paramKind", spec: `"paramKind":{"apiVersion":"example.com/v1","kind":"Limits"},"validations":[{"expression":"true"}]`,
			paramRef: `{"name":"x","parameterNotFoundAction":"Allow"}`, replicas: 1, wantCode: 422,
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Limits'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			actions := tc.actions
			if actions == "" {
				actions = `["Deny"]`
			}
			p := testPolicy(t, tc.spec)
			rec := &recorder{}
			d := testDispatcher(p, testBinding(actions, tc.paramRef), map[string]string{"default/limits": limits}, rec)
			err := d.Validate(context.Background(), deployment(tc.replicas))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Fatalf("error:\n got %s\nwant %s", got, tc.wantErr)
			}
			if err != nil {
				st := err.(*StatusError).Status
				if st.Code != tc.wantCode || len(st.Details.Causes) != 1 || !strings.HasSuffix(st.Message, st.Details.Causes[0].Message) {
					t.Fatalf("status %+v, want code %d and the message as its cause", st, tc.wantCode)
				}
			}
			if w := strings.Join(rec.warnings, "\n"); w != tc.wantWarn {
				t.Fatalf("warnings %q, want %q", w, tc.wantWarn)
			}
			if a := rec.annotations[validationFailureAnnotation]; a != tc.wantAudit {
				t.Fatalf("audit annotation %s, want %s", a, tc.wantAudit)
			}
		})
	}
}
