package defaults

import "kubik/ch01-apiserver/api/rbacv1"

// setDefaultsRoleBinding is SetDefaults_RoleBinding of rbac/v1 plus
// SetDefaults_Subject for every subject: a roleRef without an apiGroup refers
// to rbac.authorization.k8s.io, so `roleRef: {kind: Role, name: x}` is enough.
func setDefaultsRoleBinding(rb *rbacv1.RoleBinding) {
	setDefaultsRoleRef(&rb.RoleRef)
	for i := range rb.Subjects {
		setDefaultsSubject(&rb.Subjects[i])
	}
}

// setDefaultsClusterRoleBinding is SetDefaults_ClusterRoleBinding plus
// SetDefaults_Subject for every subject.
func setDefaultsClusterRoleBinding(crb *rbacv1.ClusterRoleBinding) {
	setDefaultsRoleRef(&crb.RoleRef)
	for i := range crb.Subjects {
		setDefaultsSubject(&crb.Subjects[i])
	}
}

// setDefaultsRoleRef is the body of SetDefaults_RoleBinding and
// SetDefaults_ClusterRoleBinding.
func setDefaultsRoleRef(ref *rbacv1.RoleRef) {
	if ref.APIGroup == "" {
		ref.APIGroup = rbacv1.GroupName
	}
}

// setDefaultsSubject is SetDefaults_Subject: users and groups belong to
// rbac.authorization.k8s.io, service accounts to the core group (""). A
// subject of any other kind keeps its empty apiGroup (validation refuses the
// kind).
func setDefaultsSubject(s *rbacv1.Subject) {
	if s.APIGroup != "" {
		return
	}
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		s.APIGroup = ""
	case rbacv1.UserKind, rbacv1.GroupKind:
		s.APIGroup = rbacv1.GroupName
	}
}

// setDefaultsRole and setDefaultsClusterRole are not upstream defaults but
// what its storage does to them: objects go to etcd in protobuf, which has
// no empty lists, so `rules: []` comes back as `rules: null`. Here the
// empty list is dropped on the way in.
func setDefaultsRole(r *rbacv1.Role) {
	if len(r.Rules) == 0 {
		r.Rules = nil
	}
}

func setDefaultsClusterRole(r *rbacv1.ClusterRole) {
	if len(r.Rules) == 0 {
		r.Rules = nil
	}
}
