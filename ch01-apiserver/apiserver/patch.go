package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/patch"
	"kubik/ch01-apiserver/apiserver/serializer"
)

// The four PATCH content types kubectl uses:
//
//	application/merge-patch+json           kubectl label, annotate, scale   (RFC 7386)
//	application/json-patch+json            kubectl rollout undo             (RFC 6902)
//	application/strategic-merge-patch+json kubectl apply, edit, set, cordon (lists merged by key)
//	application/apply-patch+yaml           kubectl apply --server-side      (field ownership)
const (
	patchMerge     = "application/merge-patch+json"
	patchJSON      = "application/json-patch+json"
	patchStrategic = "application/strategic-merge-patch+json"
	patchApply     = "application/apply-patch+yaml"
)

var supportedPatchTypes = []string{patchJSON, patchMerge, patchApply, patchStrategic}

func patchType(r *http.Request) string {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return ct
}

// applyPatch applies a merge, JSON or strategic merge patch to original.
func (s *Server) applyPatch(q *request, original, body []byte, t reflect.Type) ([]byte, error) {
	var out []byte
	var err error
	switch patchType(q.r) {
	case patchMerge:
		out, err = patch.MergePatch(original, body)
	case patchJSON:
		out, err = patch.JSONPatch(original, body)
		var bad *patch.BadJSONPatchError
		if err != nil && !errors.As(err, &bad) && !errors.Is(err, patch.ErrBadJSONPatch) {
			// Upstream answers an operation that does not apply with
			// NewGenericServerResponse(422, ...), which drops the text of the
			// error: kubectl prints "The request is invalid: the server
			// rejected our request due to an error in our request".
			return nil, newStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
				"the server rejected our request due to an error in our request", &metav1.StatusDetails{})
		}
	case patchStrategic:
		out, err = patch.StrategicMergePatch(original, body, t)
	case patchApply:
		return nil, ErrUnsupportedMediaType(patchApply, []string{patchJSON, patchMerge, patchStrategic})
	default:
		return nil, ErrUnsupportedMediaType(patchType(q.r), supportedPatchTypes)
	}
	if err != nil {
		return nil, patchError(err)
	}
	return out, nil
}

// patchError: a patch that cannot be applied is the client's mistake.
func patchError(err error) error {
	var se *StatusError
	if errors.As(err, &se) {
		return se
	}
	var bad *patch.BadJSONPatchError
	if errors.As(err, &bad) || errors.Is(err, patch.ErrBadJSONPatch) {
		return ErrBadRequest(err.Error())
	}
	// A well-formed patch that does not apply to this object: 422, as upstream.
	return newStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, err.Error(), nil)
}

// handlePatch: PATCH an object, its status or its scale.
func (s *Server) handlePatch(ctx context.Context, q *request) error {
	if q.info.Name == "" {
		return methodNotAllowed()
	}
	pt := patchType(q.r)
	switch pt {
	case patchMerge, patchJSON, patchStrategic, patchApply:
	default:
		// Refused by the route itself, before the handler runs (upstream's
		// go-restful Consumes filter): a bare 415.
		return newStatus(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
			"415: Unsupported Media Type", &metav1.StatusDetails{})
	}
	if err := validatePatchOptions(q, pt); err != nil {
		return err
	}
	body, err := readBody(q.r, s.cfg.MaxRequestBodyBytes)
	if err != nil {
		return err
	}
	if q.info.Subresource == "scale" {
		return s.handleScaleUpdate(ctx, q, body)
	}
	res := q.res
	t := reflect.TypeOf(res.New()).Elem()
	if q.custom != nil {
		t = q.custom.ApplyType() // no Go type of its own: one built from the schema
	}
	isApply := pt == patchApply
	if isApply {
		if body, err = serializer.ToJSON(body, pt); err != nil {
			return ErrBadRequest(err.Error())
		}
		// Server-side apply checks the applied configuration against the
		// schema before anything else, and says so as upstream does (a 500).
		if strict, err := serializer.DecodeStrict(body, res.New()); err == nil && len(strict) > 0 {
			path := strings.TrimSuffix(strings.TrimPrefix(strict[0], `unknown field "`), `"`)
			ns := ""
			if res.Namespaced {
				ns = q.info.Namespace + "/"
			}
			return newStatus(http.StatusInternalServerError, "", fmt.Sprintf(
				"failed to create typed patch object (%s%s; %s, Kind=%s): .%s: field not declared in schema",
				ns, q.info.Name, res.Group+"/"+res.Version, res.Kind, path), nil)
		}
	}
	updated, created, err := s.update(ctx, q, q.info.Name, q.info.Subresource, func(old metav1.Object) (metav1.Object, error) {
		var original []byte
		oldRV := ""
		if old != nil {
			oldRV = old.GetObjectMeta().ResourceVersion
			original, _ = json.Marshal(old)
		}
		var patched []byte
		var err error
		if isApply {
			patched, err = patch.Apply(original, body, t, q.query("fieldManager"), queryBool(q.r.URL.Query()["force"]), metav1.Now())
			if err != nil {
				return nil, applyError(res.Group, res.Resource, err)
			}
		} else {
			if patched, err = s.applyPatch(q, original, body, t); err != nil {
				return nil, err
			}
		}
		obj, err := s.decodeJSON(q, res, patched, res.New())
		if err != nil {
			return nil, err
		}
		meta := obj.GetObjectMeta()
		if old != nil && meta.ResourceVersion == oldRV {
			meta.ResourceVersion = "" // no precondition in the patch: retry on conflicts
		}
		if meta.Name != q.info.Name {
			return nil, ErrBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", meta.Name, q.info.Name))
		}
		if err := checkNamespace(q, meta); err != nil {
			return nil, err
		}
		return obj, nil
	}, isApply && q.info.Subresource == "")
	if err != nil {
		return err
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	return s.writeObject(q, code, updated)
}

// applyError turns server-side apply conflicts into upstream's 409.
func applyError(group, resource string, err error) error {
	var conflicts *patch.Conflicts
	if errors.As(err, &conflicts) {
		causes := make([]metav1.StatusCause, 0, len(*conflicts))
		for _, c := range *conflicts {
			causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeFieldManagerConflict,
				Message: "conflict with " + c.Manager, Field: c.Field})
		}
		st := newStatus(http.StatusConflict, metav1.StatusReasonConflict, conflicts.Error(), &metav1.StatusDetails{Causes: causes})
		return st
	}
	return patchError(err)
}
