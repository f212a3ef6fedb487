package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/authorizationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/apiserver/auth/serviceaccount"
)

// The create-only kinds: a client POSTs a question and gets the object back
// with its status filled in; nothing is stored. Upstream:
// pkg/registry/authorization/* and pkg/registry/authentication/*.
//
//	SelfSubjectAccessReview   may I do X?            kubectl auth can-i
//	SubjectAccessReview       may user U do X?       webhooks, kubelets
//	LocalSubjectAccessReview  the same, in one namespace
//	SelfSubjectRulesReview    what may I do here?    kubectl auth can-i --list
//	SelfSubjectReview         who am I?              kubectl auth whoami
//	TokenReview               whose token is this?
//	TokenRequest              a token for a ServiceAccount (serviceaccounts/<name>/token)

var tokenRequestKind = &scheme.Resource{Group: "authentication.k8s.io", Version: "v1", Resource: "tokenrequests", Kind: "TokenRequest",
	New: func() metav1.Object { return &authenticationv1.TokenRequest{} }}

// handleReview answers a POST of one of the review kinds.
func (s *Server) handleReview(ctx context.Context, q *request) error {
	obj, err := s.decodeBody(q, q.res)
	if err != nil {
		return err
	}
	switch o := obj.(type) {
	case *authorizationv1.SelfSubjectAccessReview:
		a, err := reviewAttributes(q.res, q.user, o.Spec.ResourceAttributes, o.Spec.NonResourceAttributes)
		if err != nil {
			return err
		}
		o.Status = s.accessReviewStatus(ctx, a)
	case *authorizationv1.SubjectAccessReview:
		u, err := reviewUser(q.res, &o.Spec)
		if err != nil {
			return err
		}
		a, err := reviewAttributes(q.res, u, o.Spec.ResourceAttributes, o.Spec.NonResourceAttributes)
		if err != nil {
			return err
		}
		o.Status = s.accessReviewStatus(ctx, a)
	case *authorizationv1.LocalSubjectAccessReview:
		if o.Namespace == "" {
			o.Namespace = q.info.Namespace
		}
		if o.Namespace != q.info.Namespace {
			return ErrBadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
		if ra := o.Spec.ResourceAttributes; ra != nil && ra.Namespace != o.Namespace {
			return reviewInvalid(q.res, "spec.resourceAttributes.namespace", fmt.Sprintf("%q", ra.Namespace), "must match metadata.namespace")
		}
		if o.Spec.NonResourceAttributes != nil {
			return reviewInvalid(q.res, "spec.nonResourceAttributes", "null", "disallowed on this kind of request")
		}
		u, err := reviewUser(q.res, &o.Spec)
		if err != nil {
			return err
		}
		a, err := reviewAttributes(q.res, u, o.Spec.ResourceAttributes, nil)
		if err != nil {
			return err
		}
		o.Status = s.accessReviewStatus(ctx, a)
	case *authorizationv1.SelfSubjectRulesReview:
		if o.Spec.Namespace == "" {
			return ErrBadRequest("no namespace on request")
		}
		rules, incomplete, err := s.authorizer.RulesFor(ctx, q.user, o.Spec.Namespace)
		st := authorizationv1.SubjectRulesReviewStatus{ResourceRules: []authorizationv1.ResourceRule{},
			NonResourceRules: []authorizationv1.NonResourceRule{}, Incomplete: incomplete}
		for _, r := range rules {
			if len(r.Resources) > 0 {
				st.ResourceRules = append(st.ResourceRules, authorizationv1.ResourceRule{Verbs: r.Verbs, APIGroups: r.APIGroups,
					Resources: r.Resources, ResourceNames: r.ResourceNames})
			}
			if len(r.NonResourceURLs) > 0 {
				st.NonResourceRules = append(st.NonResourceRules, authorizationv1.NonResourceRule{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs})
			}
		}
		if err != nil {
			st.EvaluationError = err.Error()
		}
		o.Status = st
	case *authenticationv1.SelfSubjectReview:
		o.Status.UserInfo = toAuthnUserInfo(q.user)
	case *authenticationv1.TokenReview:
		if o.Spec.Token == "" {
			return reviewInvalid(q.res, "spec.token", `""`, "token must be specified")
		}
		u, err := s.tokens.Authenticate(ctx, o.Spec.Token, o.Spec.Audiences)
		o.Status = authenticationv1.TokenReviewStatus{}
		if err != nil {
			o.Status.Error = err.Error()
		} else {
			o.Status.Authenticated = true
			o.Status.User = toAuthnUserInfo(u)
			o.Status.Audiences = o.Spec.Audiences
			if len(o.Status.Audiences) == 0 {
				o.Status.Audiences = s.saTokens.Audiences
			}
		}
	default:
		return methodNotAllowed()
	}
	meta := obj.GetObjectMeta()
	meta.CreationTimestamp = metav1.Time{}
	return s.writeObject(q, http.StatusCreated, obj)
}

func reviewInvalid(res *scheme.Resource, field, value, detail string) error {
	msg := fmt.Sprintf("Invalid value: %s: %s", value, detail)
	return ErrInvalid(res.Group, res.Kind, "", []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: msg, Field: field}},
		field+": "+msg)
}

// reviewAttributes turns the spec of an access review into Attributes.
func reviewAttributes(res *scheme.Resource, u *auth.UserInfo, ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes) (*auth.Attributes, error) {
	if (ra == nil) == (nra == nil) {
		v := "null"
		if ra != nil {
			v = fmt.Sprintf("%+v", *ra)
		}
		return nil, reviewInvalid(res, "spec.resourceAttributes", v, "exactly one of nonResourceAttributes or resourceAttributes must be specified")
	}
	if nra != nil {
		return &auth.Attributes{User: u, Verb: nra.Verb, Path: nra.Path}, nil
	}
	a := &auth.Attributes{User: u, Verb: ra.Verb, IsResourceRequest: true, Namespace: ra.Namespace, APIGroup: ra.Group,
		APIVersion: ra.Version, Resource: ra.Resource, Subresource: ra.Subresource, Name: ra.Name}
	if ra.FieldSelector != nil {
		a.FieldSelector = ra.FieldSelector.RawSelector
	}
	return a, nil
}

// reviewUser is the user a SubjectAccessReview asks about.
func reviewUser(res *scheme.Resource, spec *authorizationv1.SubjectAccessReviewSpec) (*auth.UserInfo, error) {
	if spec.User == "" && len(spec.Groups) == 0 {
		return nil, reviewInvalid(res, "spec.user", `""`, "at least one of user or group must be specified")
	}
	u := &auth.UserInfo{Name: spec.User, UID: spec.UID, Groups: spec.Groups}
	if len(spec.Extra) > 0 {
		u.Extra = map[string][]string{}
		for k, v := range spec.Extra {
			u.Extra[k] = v
		}
	}
	return u, nil
}

func (s *Server) accessReviewStatus(ctx context.Context, a *auth.Attributes) authorizationv1.SubjectAccessReviewStatus {
	d, reason, err := s.authorizer.Authorize(ctx, a)
	st := authorizationv1.SubjectAccessReviewStatus{Allowed: d == auth.DecisionAllow, Denied: d == auth.DecisionDeny, Reason: reason}
	if err != nil {
		st.EvaluationError = err.Error()
	}
	return st
}

func toAuthnUserInfo(u *auth.UserInfo) authenticationv1.UserInfo {
	if u == nil {
		return authenticationv1.UserInfo{}
	}
	out := authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
	if len(u.Extra) > 0 {
		out.Extra = map[string]authenticationv1.ExtraValue{}
		for k, v := range u.Extra {
			out.Extra[k] = v
		}
	}
	return out
}

// handleTokenRequest: POST serviceaccounts/<name>/token issues a bound token.
func (s *Server) handleTokenRequest(ctx context.Context, q *request) error {
	obj, err := s.decodeBody(q, tokenRequestKind)
	if err != nil {
		return err
	}
	tr := obj.(*authenticationv1.TokenRequest)
	saObj, err := s.getObject(ctx, q.res, q.info.Namespace, q.info.Name)
	if err != nil {
		return err
	}
	sa := saObj.(*corev1.ServiceAccount)
	if err := s.admitNodeTokenRequest(ctx, q, tr); err != nil {
		return err
	}
	if tr.Spec.ExpirationSeconds == nil {
		d := int64(3600)
		tr.Spec.ExpirationSeconds = &d
	}
	if len(tr.Spec.Audiences) == 0 {
		tr.Spec.Audiences = s.saTokens.Audiences
	}
	if e := *tr.Spec.ExpirationSeconds; e < 600 {
		return reviewInvalidNamed(tokenRequestKind, sa.Name, "spec.expirationSeconds", fmt.Sprint(e), "may not specify a duration less than 10 minutes")
	} else if e > 1<<32 {
		return reviewInvalidNamed(tokenRequestKind, sa.Name, "spec.expirationSeconds", fmt.Sprint(e), "may not specify a duration larger than 2^32 seconds")
	}
	var pod, secret, node *serviceaccount.Ref
	if ref := tr.Spec.BoundObjectRef; ref != nil {
		var resource string
		switch ref.Kind {
		case "Pod":
			resource = "pods"
		case "Secret":
			resource = "secrets"
		case "Node":
			resource = "nodes"
		default:
			return ErrBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to object of type %s", sa.Name, ref.Kind))
		}
		res := scheme.Lookup("", "v1", resource)
		ns := q.info.Namespace
		if resource == "nodes" {
			ns = ""
		}
		bound, err := s.getObject(ctx, res, ns, ref.Name)
		if err != nil {
			return err
		}
		uid := bound.GetObjectMeta().UID
		if ref.UID != "" && ref.UID != uid {
			return ErrConflict("authentication.k8s.io", ref.Kind, ref.Kind+".authentication.k8s.io", ref.Name,
				fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
		}
		r := &serviceaccount.Ref{Name: ref.Name, UID: uid}
		switch resource {
		case "pods":
			pod = r
			// A pod-bound token also names the pod's node, as upstream does.
			if n := bound.(*corev1.Pod).Spec.NodeName; n != "" {
				if nodeObj, err := s.getObject(ctx, scheme.Lookup("", "v1", "nodes"), "", n); err == nil {
					node = &serviceaccount.Ref{Name: n, UID: nodeObj.GetObjectMeta().UID}
				}
			}
		case "secrets":
			secret = r
		case "nodes":
			node = r
		}
	}
	now := time.Now()
	token, exp, err := s.saTokens.Issue(sa, tr.Spec.Audiences, time.Duration(*tr.Spec.ExpirationSeconds)*time.Second, pod, secret, node, now)
	if err != nil {
		return ErrInternal(err)
	}
	tr.ObjectMeta = metav1.ObjectMeta{Name: sa.Name, Namespace: sa.Namespace, CreationTimestamp: metav1.NewTime(now)}
	tr.Status = authenticationv1.TokenRequestStatus{Token: token, ExpirationTimestamp: metav1.NewTime(exp)}
	setTypeMeta(tokenRequestKind, tr)
	q.write(http.StatusCreated, tr)
	return nil
}

func reviewInvalidNamed(res *scheme.Resource, name, field, value, detail string) error {
	msg := fmt.Sprintf("Invalid value: %s: %s", value, detail)
	return ErrInvalid(res.Group, res.Kind, name, []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: msg, Field: field}},
		field+": "+msg)
}
