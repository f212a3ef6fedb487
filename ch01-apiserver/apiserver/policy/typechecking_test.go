package policy

import (
	"encoding/json"
	"testing"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
)

func TestTypeChecking(t *testing.T) {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	doc := `{"metadata":{"name":"p"},"spec":{"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},
		"matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["deployments","replicasets","*"]}]},
		"variables":[{"name":"r","expression":"object.spec.replicas"}],
		"validations":[
			{"expression":"object.spec.replicas <= 5 && variables.r >= 0 && object.metadata.name != '' && params.data.max != ''"},
			{"expression":"object.spec.replicass > 1","messageExpression":"'x' + object.spec.replicas"},
			{"expression":"params.dat.max == '1'"}]}}`
	if err := json.Unmarshal([]byte(doc), p); err != nil {
		t.Fatal(err)
	}
	got := (&TypeChecker{Schemas: BuiltinSchemas()}).Check(p)
	want := []admissionregistrationv1.ExpressionWarning{
		{FieldRef: "spec.validations[1].expression", Warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^\n\n" +
			"apps/v1, Kind=ReplicaSet: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^\n"},
		{FieldRef: "spec.validations[1].messageExpression", Warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(string, int)'\n | 'x' + object.spec.replicas\n | ....^\n\n" +
			"apps/v1, Kind=ReplicaSet: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(string, int)'\n | 'x' + object.spec.replicas\n | ....^\n"},
		{FieldRef: "spec.validations[2].expression", Warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'dat'\n | params.dat.max == '1'\n | ......^\n\n" +
			"apps/v1, Kind=ReplicaSet: ERROR: <input>:1:7: undefined field 'dat'\n | params.dat.max == '1'\n | ......^\n"},
	}
	g, _ := json.MarshalIndent(got, "", " ")
	w, _ := json.MarshalIndent(want, "", " ")
	if string(g) != string(w) {
		t.Fatalf("warnings:\n%s\nwant:\n%s", g, w)
	}
}
