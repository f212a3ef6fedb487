// Package protobuf reads and writes Kubernetes protobuf bodies
// (Content-Type application/vnd.kubernetes.protobuf).
//
// kubectl 1.32 and later send some request bodies in protobuf: `create
// configmap|secret|deployment|namespace|serviceaccount|token`, `auth can-i`
// and `auth whoami`. Such a body is the 4-byte magic "k8s\x00" followed by a
// runtime.Unknown message that names the object's apiVersion and kind and
// carries the object itself, protobuf-encoded, in its raw field.
//
// Upstream generates a Marshal and an Unmarshal method for every type
// (k8s.io/api/*/generated.pb.go). We have no generated code: Unmarshal and
// Marshal walk our Go types by reflection and read the field numbers from the
// `protobuf:"bytes,3,opt,name=..."` struct tags, which are upstream's.
//
// Upstream: k8s.io/apimachinery/pkg/runtime/serializer/protobuf (the
// envelope) and pkg/runtime/generated.proto (runtime.Unknown).
package protobuf

import (
	"bytes"
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// ContentType is the media type of Kubernetes protobuf bodies.
const ContentType = "application/vnd.kubernetes.protobuf"

// Magic is the prefix of every Kubernetes protobuf body. It tells a protobuf
// body from JSON or YAML at a glance and leaves room for other encodings.
var Magic = []byte{'k', '8', 's', 0}

// Field numbers of runtime.Unknown and of its runtime.TypeMeta.
const (
	unknownTypeMeta        = 1 // TypeMeta typeMeta
	unknownRaw             = 2 // bytes raw
	unknownContentEncoding = 3 // string contentEncoding
	unknownContentType     = 4 // string contentType

	typeMetaAPIVersion = 1
	typeMetaKind       = 2
)

// DecodeEnvelope checks the magic and unwraps the runtime.Unknown that
// follows it: the object's apiVersion and kind, and its protobuf bytes
// (which alias body).
func DecodeEnvelope(body []byte) (apiVersion, kind string, raw []byte, err error) {
	if !bytes.HasPrefix(body, Magic) {
		return "", "", nil, errors.New(`protobuf body does not start with the magic "k8s\x00"`)
	}
	b := body[len(Magic):]
	var contentEncoding, contentType string
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", "", nil, fmt.Errorf("protobuf envelope: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if typ != protowire.BytesType {
			// Not one of ours: skip it, as protobuf readers do.
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return "", "", nil, fmt.Errorf("protobuf envelope: field %d: %w", num, protowire.ParseError(n))
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return "", "", nil, fmt.Errorf("protobuf envelope: field %d: %w", num, protowire.ParseError(n))
		}
		b = b[n:]
		switch num {
		case unknownTypeMeta:
			if apiVersion, kind, err = decodeTypeMeta(v); err != nil {
				return "", "", nil, err
			}
		case unknownRaw:
			raw = v
		case unknownContentEncoding:
			contentEncoding = string(v)
		case unknownContentType:
			contentType = string(v)
		}
	}
	if contentEncoding != "" {
		return "", "", nil, fmt.Errorf("protobuf envelope: unsupported content encoding %q", contentEncoding)
	}
	if contentType != "" && contentType != ContentType {
		return "", "", nil, fmt.Errorf("protobuf envelope: unsupported content type %q", contentType)
	}
	if kind == "" {
		return "", "", nil, errors.New("protobuf envelope: the object has no kind")
	}
	return apiVersion, kind, raw, nil
}

// decodeTypeMeta reads runtime.TypeMeta {apiVersion=1, kind=2}.
func decodeTypeMeta(b []byte) (apiVersion, kind string, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", "", fmt.Errorf("protobuf envelope: typeMeta: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if typ == protowire.BytesType && (num == typeMetaAPIVersion || num == typeMetaKind) {
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return "", "", fmt.Errorf("protobuf envelope: typeMeta: %w", protowire.ParseError(n))
			}
			b = b[n:]
			if num == typeMetaAPIVersion {
				apiVersion = string(v)
			} else {
				kind = string(v)
			}
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return "", "", fmt.Errorf("protobuf envelope: typeMeta: %w", protowire.ParseError(n))
		}
		b = b[n:]
	}
	return apiVersion, kind, nil
}

// EncodeEnvelope wraps an object's protobuf bytes the way upstream's
// serializer does: magic, then runtime.Unknown with every field written
// (gogo's proto2 encoding writes empty strings too).
func EncodeEnvelope(apiVersion, kind string, raw []byte) []byte {
	var tm []byte
	tm = protowire.AppendTag(tm, typeMetaAPIVersion, protowire.BytesType)
	tm = protowire.AppendString(tm, apiVersion)
	tm = protowire.AppendTag(tm, typeMetaKind, protowire.BytesType)
	tm = protowire.AppendString(tm, kind)

	b := append([]byte(nil), Magic...)
	b = protowire.AppendTag(b, unknownTypeMeta, protowire.BytesType)
	b = protowire.AppendBytes(b, tm)
	if raw != nil {
		b = protowire.AppendTag(b, unknownRaw, protowire.BytesType)
		b = protowire.AppendBytes(b, raw)
	}
	b = protowire.AppendTag(b, unknownContentEncoding, protowire.BytesType)
	b = protowire.AppendString(b, "")
	b = protowire.AppendTag(b, unknownContentType, protowire.BytesType)
	b = protowire.AppendString(b, "")
	return b
}
