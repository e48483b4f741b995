package perfopt

// Exit is a failure that perf reports with a message of its own and an
// exit status: the command prints Msg (when not empty) as perf does, then
// Detail, perfpt's own account of the cause, when there is one, and exits
// with Status.
type Exit struct {
	Msg    string
	Status int
	Detail error
}

func (e *Exit) Error() string {
	switch {
	case e.Msg == "" && e.Detail != nil:
		return e.Detail.Error()
	case e.Detail != nil:
		return e.Msg + ": " + e.Detail.Error()
	}
	return e.Msg
}

func (e *Exit) Unwrap() error { return e.Detail }
