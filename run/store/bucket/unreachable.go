package bucket

import (
	"context"
	"errors"
	"net"
	"net/http"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// Unreachable reports whether err means the store could not be reached
// at all, after the SDK's retries: no answer (a refused or dropped
// connection, a timeout) or a gateway's or server's "not available now"
// (502, 503, 504). Commands exit 2 on it, as for any input they cannot
// read; a server that answers and refuses (403, 500 to a write) is a
// failure of the command instead (exit 1).
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		switch re.HTTPStatusCode() {
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded)
}
