package mock

import (
	"errors"
	"fmt"
	"net/http"
)

// apiError is vLLM's error body: {"error":{message,type,param,code}} with
// code equal to the HTTP status (wire-formats.md §6).
type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    int     `json:"code"`
}

type errorBody struct {
	Error apiError `json:"error"`
}

// errorType maps a status to the type vLLM's handlers report: engine and
// serving errors use exception names, route HTTPExceptions the HTTP phrase.
func errorType(code int) string {
	switch code {
	case http.StatusBadRequest:
		return "BadRequestError"
	case http.StatusNotFound:
		return "NotFoundError"
	case http.StatusInternalServerError:
		return "InternalServerError"
	case http.StatusNotImplemented:
		return "NotImplementedError"
	}
	return http.StatusText(code)
}

func newAPIError(code int, typ, msg, param string) apiError {
	e := apiError{Message: msg, Type: typ, Code: code}
	if param != "" {
		e.Param = &param
	}
	return e
}

// writeError answers with an engine-style error (type from errorType).
func writeError(w http.ResponseWriter, code int, msg, param string) {
	writeJSON(w, code, errorBody{newAPIError(code, errorType(code), msg, param)})
}

// writeHTTPError answers like a route's HTTPException or a request
// validation failure: type is the HTTP phrase ("Bad Request").
func writeHTTPError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, errorBody{newAPIError(code, http.StatusText(code), msg, "")})
}

// modelNotFound is vLLM's answer to a model it does not serve.
func modelNotFound(w http.ResponseWriter, model string) {
	writeError(w, http.StatusNotFound, "The model `"+model+"` does not exist.", "model")
}

// errAborted ends a handler whose response a fault already finished.
var errAborted = errors.New("mock: response aborted by a fault")

// errEngineFailed is errAborted for an error-event fault: the engine failed the
// request, which the metrics count as finished_reason "error", not "abort".
var errEngineFailed = fmt.Errorf("%w: simulated engine failure", errAborted)
