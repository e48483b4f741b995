package pprof

import (
	"testing"

	"github.com/google/pprof/profile"

	"github.com/perfpt/perfpt/internal/benchcpu"
)

// BenchmarkLocation asks the builder for the locations of the stacks of
// sampled syscalls at Address granularity, as the sampled path does per
// frame: kernel frames (the same few), libc frames and the program's,
// sixteen stacks in turn; an op is one stack of twelve frames.
func BenchmarkLocation(b *testing.B) {
	kernel := MapInfo{Start: 0xffffffff81000000, End: 0xffffffff82000000, File: "[kernel.kallsyms]"}
	libc := MapInfo{Start: 0x7f0000000000, End: 0x7f0000200000, PgOff: 0x28000, File: "/usr/lib/x86_64-linux-gnu/libc.so.6"}
	prog := MapInfo{Start: 0x400000, End: 0x500000, File: "/bin/prog"}
	var stacks [16][]Frame
	for i := range stacks {
		for j := 0; j < 4; j++ {
			stacks[i] = append(stacks[i], Frame{IP: kernel.Start + uint64(j)*0x100, Map: kernel, Caller: j > 0})
		}
		for j := 0; j < 2; j++ {
			stacks[i] = append(stacks[i], Frame{IP: libc.Start + uint64(i%4)*0x40 + uint64(j)*0x1000, Map: libc, Caller: true})
		}
		for j := 0; j < 6; j++ {
			stacks[i] = append(stacks[i], Frame{IP: prog.Start + uint64(i)*0x10 + uint64(j)*0x800, Map: prog, Caller: true})
		}
	}
	bl := NewBuilder(Address, []*profile.ValueType{{Type: "samples", Unit: "count"}})
	b.ReportAllocs()
	start := benchcpu.Now()
	for i := 0; b.Loop(); i++ {
		st := stacks[i%len(stacks)]
		for j := range st {
			bl.Location(&st[j])
		}
	}
	benchcpu.Report(b, start)
}
