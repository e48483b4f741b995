package ptxed

// Usage is ptxed's help text.
const Usage = `usage: perfpt ptxed [<options>]

Decodes an Intel PT trace against code images and prints the executed
instructions like libipt's ptxed. Instructions are disassembled with
golang.org/x/arch/x86/x86asm in AT&T syntax as GNU objdump spells it
(jg, cltd, "cmp %ebx,%eax"), with or without --att. This differs from
libipt's ptxed, which prints XED's Intel syntax by default and XED's AT&T
spelling with --att (jnle, cdq, "cmp %ebx, %eax"): only with --no-inst is
the output libipt's.

options:
  --help|-h                      this text.
  --pt <file>[:<from>[-<to>]]    the trace (exactly one).
  --raw <file>[:<from>[-<to>]]:<base>
                                 load raw code from <file> at address <base>.
  --elf <file>[:<base>]          load the PT_LOAD segments of an ELF file
                                 (moved so that the lowest starts at <base>).
  --cpu none|f/m[/s]             decode with the errata of that cpu.
  --block-decoder                use the block decoder (default).
  --insn-decoder                 use the instruction flow decoder.
  -j|--jobs <n>                  decode PSB chunks with <n> workers (block
                                 decoder); the output does not change.
                                 With --block:show-blocks or block counts
                                 (--stat), chunks are decoded in order:
                                 blocks end where libipt's, whose block
                                 cache fills in trace order, end.
  --no-inst                      print addresses only.
  --quiet|-q                     print nothing but errors.
  --offset, --time, --raw-insn   print the trace offset, the time, the bytes.
  --check                        check each instruction's class with another
                                 decoder (x86asm); print the differences.
  --att                          AT&T syntax (perfpt's only syntax, GNU's
                                 spelling, not XED's).
  --iscache-limit <n>            cap the bytes of image files held in memory;
                                 perfpt keeps each file whole, so a file
                                 that does not fit is an error (libipt
                                 unmaps sections to stay below it).
  --verbose|-v                   list the load segments of the ELF files
                                 given after it.
  --resync-on-error              resynchronise at the next event after errors.
  --stat, --stat:insn, --stat:blocks
                                 print statistics.
  --event:ip, --event:time       print event IPs, event times.
  --event:tick, --event:iflags   report tick and iflags events.
  --filter:addr<n>_cfg|_a|_b <v> address filter configuration (n = 0..3).
  --block:show-blocks, --block:end-on-call, --block:end-on-jump
  --insn:keep-tcal-on-ovf, --block:keep-tcal-on-ovf
  --mtc-freq <n>, --nom-freq <n>, --cpuid-0x15.eax <n>, --cpuid-0x15.ebx <n>
                                 timing parameters.
  --sb:compact|verbose|filename|offset|time|switch|warn
                                 print perf_event sideband records, context
                                 switches, warnings.
  --pevent:primary|secondary <file>[:<from>[-<to>]]
                                 load a perf_event sideband file; process
                                 images follow its MMAP, COMM.EXEC, FORK and
                                 switch records (then -j is ignored).
  --pevent:sample-type|sample-config|time-zero|time-shift|time-mult|
  tsc-offset|kernel-start|sysroot|kcore|vdso-x64|vdso-x32|vdso-ia32 <v>
                                 as libipt's ptxed.
`
