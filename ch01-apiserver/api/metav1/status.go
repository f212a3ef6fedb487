package metav1

// Status is the body of every error answer (and of some successful deletes).
// kubectl prints "Error from server (<reason>): <message>" from it.
type Status struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Status   string         `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	Message  string         `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	Reason   string         `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason,casttype=StatusReason"`
	Details  *StatusDetails `json:"details,omitempty" protobuf:"bytes,5,opt,name=details"`
	Code     int32          `json:"code,omitempty" protobuf:"varint,6,opt,name=code"`
}

// StatusDetails names the object an error is about; Kind holds the plural resource name.
type StatusDetails struct {
	Name              string        `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	Group             string        `json:"group,omitempty" protobuf:"bytes,2,opt,name=group"`
	Kind              string        `json:"kind,omitempty" protobuf:"bytes,3,opt,name=kind"`
	UID               string        `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	Causes            []StatusCause `json:"causes,omitempty" protobuf:"bytes,4,rep,name=causes"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitempty" protobuf:"varint,5,opt,name=retryAfterSeconds"`
}

// StatusCause is one reason a request failed (one invalid field, one apply conflict).
type StatusCause struct {
	Type    string `json:"reason,omitempty" protobuf:"bytes,1,opt,name=reason,casttype=CauseType"`
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	Field   string `json:"field,omitempty" protobuf:"bytes,3,opt,name=field"`
}

// Values of Status.Status.
const (
	StatusSuccess = "Success"
	StatusFailure = "Failure"
)

// Values of Status.Reason, as upstream's StatusReason constants.
const (
	StatusReasonUnknown               = ""
	StatusReasonUnauthorized          = "Unauthorized"
	StatusReasonForbidden             = "Forbidden"
	StatusReasonNotFound              = "NotFound"
	StatusReasonAlreadyExists         = "AlreadyExists"
	StatusReasonConflict              = "Conflict"
	StatusReasonGone                  = "Gone"
	StatusReasonInvalid               = "Invalid"
	StatusReasonServerTimeout         = "ServerTimeout"
	StatusReasonTimeout               = "Timeout"
	StatusReasonTooManyRequests       = "TooManyRequests"
	StatusReasonBadRequest            = "BadRequest"
	StatusReasonMethodNotAllowed      = "MethodNotAllowed"
	StatusReasonNotAcceptable         = "NotAcceptable"
	StatusReasonRequestEntityTooLarge = "RequestEntityTooLarge"
	StatusReasonUnsupportedMediaType  = "UnsupportedMediaType"
	StatusReasonInternalError         = "InternalError"
	StatusReasonExpired               = "Expired"
	StatusReasonServiceUnavailable    = "ServiceUnavailable"
)

// Values of StatusCause.Type (field validation causes use upstream's field.ErrorType reasons).
const (
	CauseTypeFieldValueNotFound       = "FieldValueNotFound"
	CauseTypeFieldValueRequired       = "FieldValueRequired"
	CauseTypeFieldValueDuplicate      = "FieldValueDuplicate"
	CauseTypeFieldValueInvalid        = "FieldValueInvalid"
	CauseTypeFieldValueNotSupported   = "FieldValueNotSupported"
	CauseTypeForbidden                = "FieldValueForbidden"
	CauseTypeTooLong                  = "FieldValueTooLong"
	CauseTypeTooMany                  = "FieldValueTooMany"
	CauseTypeInternal                 = "InternalError"
	CauseTypeTypeInvalid              = "FieldValueTypeInvalid"
	CauseTypeUnexpectedServerResponse = "UnexpectedServerResponse"
	CauseTypeFieldManagerConflict     = "FieldManagerConflict"
	CauseTypeResourceVersionTooLarge  = "ResourceVersionTooLarge"
)
