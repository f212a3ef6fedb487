package bootstrappolicy

import (
	"encoding/json"
	"os"
	"testing"
)

// The aggregated roles, the roles they aggregate and the controllers'
// roles as a kube-apiserver v1.35.4 with its controller manager shows
// them (kubectl get clusterrole NAME -o json: name, labels,
// aggregationRule, rules), recorded in testdata/upstream-roles.json.
func TestRolesMatchUpstream(t *testing.T) {
	data, err := os.ReadFile("testdata/upstream-roles.json")
	if err != nil {
		t.Fatal(err)
	}
	var want []map[string]json.RawMessage
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	byName := map[string]map[string]any{}
	for _, r := range ClusterRoles() {
		b, _ := json.Marshal(map[string]any{"labels": r.Labels, "aggregationRule": r.AggregationRule, "rules": r.Rules})
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		byName[r.Name] = m
	}
	for _, w := range want {
		var name string
		_ = json.Unmarshal(w["name"], &name)
		got, ok := byName[name]
		if !ok {
			t.Errorf("no bootstrap ClusterRole %s", name)
			continue
		}
		for _, field := range []string{"labels", "aggregationRule", "rules"} {
			var wantV any
			_ = json.Unmarshal(w[field], &wantV)
			g, _ := json.Marshal(got[field])
			wj, _ := json.Marshal(wantV)
			if string(g) != string(wj) {
				t.Errorf("%s %s:\n got: %s\nwant: %s", name, field, g, wj)
			}
		}
	}
}

// A role an administrator labels aggregate-to-view joins view, and
// through view edit and admin.
func TestAggregateCustomRole(t *testing.T) {
	roles := ClusterRoles()
	custom := clusterRole("crontab-viewer", rule(read, []string{"stable.example.com"}, "crontabs"))
	custom.Labels[AggregateToView] = "true"
	roles = append(roles, custom)
	Aggregate(roles)
	for _, r := range roles {
		switch r.Name {
		case "admin", "edit", "view":
			found := false
			for _, rule := range r.Rules {
				if len(rule.APIGroups) == 1 && rule.APIGroups[0] == "stable.example.com" {
					found = true
				}
			}
			if !found {
				t.Errorf("%s does not hold the crontab-viewer rule", r.Name)
			}
		}
	}
}
