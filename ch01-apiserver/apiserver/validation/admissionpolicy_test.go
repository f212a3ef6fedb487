package validation

import (
	"encoding/json"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
)

func TestValidatingAdmissionPolicyValidation(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want string
	}{
		{`"validations":[{"expression":"object.spec.replicas <= 5"}]`, ""},
		{`"validations":[{"expression":"object.spec.replicas <"}]`,
			"spec.validations[0].expression: Invalid value: \"object.spec.replicas <\": compilation failed: ERROR: <input>:1:23: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | object.spec.replicas <\n | ......................^"},
		{`"validations":[{"expression":"object.spec.replicas"}]`, `spec.validations[0].expression: Invalid value: "object.spec.replicas": must evaluate to bool but got dyn`},
		{`"validations":[{"expression":"1"}]`, `spec.validations[0].expression: Invalid value: "1": must evaluate to bool but got int`},
		{`"validations":[{"expression":"request.operatoin == 'CREATE'"}]`,
			"spec.validations[0].expression: Invalid value: \"request.operatoin == 'CREATE'\": compilation failed: ERROR: <input>:1:8: undefined field 'operatoin'\n | request.operatoin == 'CREATE'\n | .......^"},
		{`"validations":[{"expression":"request.operation == 'CREATE' && request.userInfo.groups.exists(g, g == 'x') && 'k' in request.userInfo.extra && !request.dryRun"}]`, ""},
		{`"validations":[{"expression":"params.x"}]`,
			"spec.validations[0].expression: Invalid value: \"params.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x\n | ^"},
		{`"validations":[{"expression":"true","messageExpression":"1"}]`, `spec.validations[0].messageExpression: Invalid value: "1": must evaluate to string but got int`},
		{`"variables":[{"name":"a","expression":"1"}],"validations":[{"expression":"variables.a > 0 && variables.b"}]`,
			"spec.validations[0].expression: Invalid value: \"variables.a > 0 && variables.b\": compilation failed: ERROR: <input>:1:29: undefined field 'b'\n | variables.a > 0 && variables.b\n | ............................^"},
		{`"variables":[{"name":"in","expression":"1"}],"validations":[{"expression":"true"}]`, `spec.variables[0].name: Invalid value: "in": must be a valid CEL identifier`},
		{`"matchConditions":[{"name":"m","expression":"'x'"}],"validations":[{"expression":"true"}]`, `spec.matchConditions[0].expression: Invalid value: "'x'": must evaluate to bool but got string`},
		{`"auditAnnotations":[{"key":"k","valueExpression":"1"}]`, `spec.auditAnnotations[0].valueExpression: Invalid value: "1": must evaluate to one of [string null_type] but got int`},
		{``, "spec.validations: Required value: validations or auditAnnotations must contain at least one item\nspec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item"},
	} {
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		sep := ""
		if tc.spec != "" {
			sep = ","
		}
		doc := `{"metadata":{"name":"p"},"spec":{"failurePolicy":"Fail","matchConstraints":{"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},
			"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["deployments"],"scope":"*"}]}` + sep + tc.spec + `}}`
		if err := json.Unmarshal([]byte(doc), p); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range validateValidatingAdmissionPolicy(p) {
			got = append(got, e.Error())
		}
		if g := strings.Join(got, "\n"); g != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.spec, g, tc.want)
		}
	}
}

func TestValidatingAdmissionPolicyBindingValidation(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want string
	}{
		{`"policyName":"p","validationActions":["Deny"]`, ""},
		{`"policyName":"p","validationActions":["Deny","Warn"]`,
			`spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`},
		{`"policyName":"p"`, `spec.validationActions: Required value: at least one validation action is required`},
		{`"policyName":"p","validationActions":["Deny"],"paramRef":{"name":"x"}}`, `spec.paramRef.parameterNotFoundAction: Required value`},
	} {
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
		if err := json.Unmarshal([]byte(`{"metadata":{"name":"b"},"spec":{`+strings.TrimSuffix(tc.spec, "}")+`}}`), b); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range validateValidatingAdmissionPolicyBinding(b) {
			got = append(got, e.Error())
		}
		if g := strings.Join(got, "\n"); g != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.spec, g, tc.want)
		}
	}
}
