// Package native records with perf_event_open: it reads PMU descriptions
// from sysfs (type, format and caps files) to build attrs from event strings
// like "intel_pt/cyc,mtc_period=3/u", maps the data ring and the AUX area
// and drains them with the kernel's head/tail protocol, and records software
// events (cpu-clock, task-clock) of a command into a perf.data.
package native
