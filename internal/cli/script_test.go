package cli

import "testing"

func TestParseScriptArgs(t *testing.T) {
	cfg, _, err := parseScriptArgs([]string{"-ifoo.data", "-F+flags,+addr", "--itrace=i0ns", "--ns", "-j", "4", "-C", "0-1", "--pid=12"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Input != "foo.data" || len(cfg.Fields) != 1 || cfg.Fields[0] != "+flags,+addr" ||
		!cfg.ItraceSet || cfg.Itrace != "i0ns" || !cfg.Nanosecs || cfg.Workers != 4 || cfg.CPUs != "0-1" || cfg.PIDs != "12" {
		t.Errorf("%+v", cfg)
	}
	cfg, _, err = parseScriptArgs([]string{"--itrace", "-F", "ip,sym", "-G"})
	if err != nil || !cfg.ItraceSet || cfg.Itrace != "" || cfg.Fields[0] != "ip,sym" || !cfg.NoCallchain {
		t.Errorf("%+v %v", cfg, err)
	}
	// perf's abbreviations of long options
	cfg, _, err = parseScriptArgs([]string{"--inp", "x.data", "--show-task", "--itr=i0ns", "--max-s=3"})
	if err != nil || cfg.Input != "x.data" || cfg.Show == 0 || cfg.Itrace != "i0ns" || cfg.MaxStack != 3 {
		t.Errorf("%+v %v", cfg, err)
	}
	// parse-options' negations of boolean options
	cfg, _, err = parseScriptArgs([]string{"--ns", "--show-task-events", "-G", "--no-ns", "--no-show-task-events", "--no-hide-call-graph", "--no-demangle", "--demangle"})
	if err != nil || cfg.Nanosecs || cfg.Show != 0 || cfg.NoCallchain || cfg.NoDemangle {
		t.Errorf("%+v %v", cfg, err)
	}
	if _, _, err := parseScriptArgs([]string{"--bogus"}); err == nil {
		t.Error("unknown option accepted")
	}
	// parse_options_step ends at "--"; perf script runs as without it.
	if cfg, _, err := parseScriptArgs([]string{"-i", "x.data", "--"}); err != nil || cfg.Input != "x.data" {
		t.Errorf("-i x.data --: %+v %v", cfg, err)
	}
}
