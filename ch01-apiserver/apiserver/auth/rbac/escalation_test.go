package rbac

import (
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/rbacv1"
)

// The cases follow upstream's pkg/registry/rbac/validation (TestCoversExactMatch...).

func TestCovers(t *testing.T) {
	tests := []struct {
		name    string
		owner   []rbacv1.PolicyRule
		servant []rbacv1.PolicyRule
		covers  bool
		missing []string
	}{
		{"exact match", []rbacv1.PolicyRule{pr(sl("get"), sl("v1"), sl("builds"), nil)},
			[]rbacv1.PolicyRule{pr(sl("get"), sl("v1"), sl("builds"), nil)}, true, nil},
		{"multiple rules covering one", []rbacv1.PolicyRule{pr(sl("get"), sl("v1"), sl("builds"), nil), pr(sl("update"), sl("v1"), sl("builds"), nil)},
			[]rbacv1.PolicyRule{pr(sl("get", "update"), sl("v1"), sl("builds"), nil)}, true, nil},
		{"star verb", []rbacv1.PolicyRule{pr(sl("*"), sl("v1"), sl("builds"), nil)},
			[]rbacv1.PolicyRule{pr(sl("get", "delete"), sl("v1"), sl("builds"), nil)}, true, nil},
		{"star verb not covered", []rbacv1.PolicyRule{pr(sl("get", "delete"), sl("v1"), sl("builds"), nil)},
			[]rbacv1.PolicyRule{pr(sl("*"), sl("v1"), sl("builds"), nil)}, false, []string{`{APIGroups:["v1"], Resources:["builds"], Verbs:["*"]}`}},
		{"resource names narrow", []rbacv1.PolicyRule{pr(sl("get"), sl(""), sl("secrets"), sl("a"))},
			[]rbacv1.PolicyRule{pr(sl("get"), sl(""), sl("secrets"), nil)}, false, []string{`{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`}},
		{"resource names covered by no names", []rbacv1.PolicyRule{pr(sl("get"), sl(""), sl("secrets"), nil)},
			[]rbacv1.PolicyRule{pr(sl("get"), sl(""), sl("secrets"), sl("a", "b"))}, true, nil},
		{"star subresource", []rbacv1.PolicyRule{pr(sl("get"), sl("apps"), sl("*/scale"), nil)},
			[]rbacv1.PolicyRule{pr(sl("get"), sl("apps"), sl("deployments/scale"), nil)}, true, nil},
		{"non-resource prefix", []rbacv1.PolicyRule{{Verbs: sl("get"), NonResourceURLs: sl("/apis/*")}},
			[]rbacv1.PolicyRule{{Verbs: sl("get"), NonResourceURLs: sl("/apis/apps")}}, true, nil},
		{"missing verbs compacted", []rbacv1.PolicyRule{pr(sl("get"), sl(""), sl("pods"), nil)},
			[]rbacv1.PolicyRule{pr(sl("get", "delete", "update"), sl(""), sl("pods"), nil)}, false,
			[]string{`{APIGroups:[""], Resources:["pods"], Verbs:["delete" "update"]}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ok, missing := Covers(tc.owner, tc.servant)
			if ok != tc.covers {
				t.Fatalf("covers = %v, want %v (missing %v)", ok, tc.covers, missing)
			}
			var got []string
			for _, m := range CompactRules(missing) {
				got = append(got, CompactString(m))
			}
			if strings.Join(got, "\n") != strings.Join(tc.missing, "\n") {
				t.Errorf("missing:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.missing, "\n"))
			}
		})
	}
}
