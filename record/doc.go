// Package record records perf.data files: natively with perf_event_open, or
// emulated by tracing a program under ptrace and synthesising the Intel PT
// packets the hardware would have written.
package record
