package gcov

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"sort"
)

// The JSON intermediate format of gcov 12 (gcov --json-format), format
// version 1. Field order follows gcc's documentation.
type jsonRoot struct {
	FormatVersion string     `json:"format_version"`
	GCCVersion    string     `json:"gcc_version"`
	CWD           string     `json:"current_working_directory"`
	DataFile      string     `json:"data_file"`
	Files         []jsonFile `json:"files"`
}

type jsonFile struct {
	File      string         `json:"file"`
	Functions []jsonFunction `json:"functions"`
	Lines     []jsonLine     `json:"lines"`
}

type jsonFunction struct {
	Name           string `json:"name"`
	DemangledName  string `json:"demangled_name"`
	StartLine      int    `json:"start_line"`
	StartColumn    int    `json:"start_column"`
	EndLine        int    `json:"end_line"`
	EndColumn      int    `json:"end_column"`
	Blocks         int    `json:"blocks"`
	BlocksExecuted int    `json:"blocks_executed"`
	ExecutionCount uint64 `json:"execution_count"`
}

type jsonLine struct {
	LineNumber      int          `json:"line_number"`
	FunctionName    string       `json:"function_name,omitempty"`
	Count           uint64       `json:"count"`
	UnexecutedBlock bool         `json:"unexecuted_block"`
	Branches        []jsonBranch `json:"branches"`
}

type jsonBranch struct {
	Count       uint64 `json:"count"`
	Throw       bool   `json:"throw"`
	Fallthrough bool   `json:"fallthrough"`
}

// JSONOptions fill the header fields of the JSON format.
type JSONOptions struct {
	CWD      string // current_working_directory
	DataFile string // data_file: the recording the coverage came from
	Branches bool   // list branches, as gcov does with -b
}

// GCCVersion is the gcc_version written in JSON output: the gcov whose
// format this package reproduces.
const GCCVersion = "12.2.0"

// WriteJSON writes r in gcov's JSON intermediate format, uncompressed.
func (r *Report) WriteJSON(w io.Writer, opt JSONOptions) error {
	root := jsonRoot{FormatVersion: "1", GCCVersion: GCCVersion, CWD: opt.CWD, DataFile: opt.DataFile, Files: []jsonFile{}}
	for _, f := range r.Files {
		jf := jsonFile{File: f.Name, Functions: []jsonFunction{}, Lines: []jsonLine{}}
		for _, fn := range f.Functions {
			jf.Functions = append(jf.Functions, jsonFunction{
				Name: fn.Name, DemangledName: fn.DemangledName(), StartLine: fn.StartLine, StartColumn: fn.StartColumn,
				EndLine: fn.EndLine, EndColumn: fn.EndColumn, Blocks: fn.Blocks, BlocksExecuted: fn.BlocksExecuted,
				ExecutionCount: fn.Called,
			})
		}
		if f.srcLines == nil {
			for _, l := range f.Lines {
				jf.Lines = append(jf.Lines, l.json(opt))
			}
		} else {
			// gcov's order: at each line, the lines of the group
			// functions starting there, then the file's own line.
			src := append([]*Line(nil), f.srcLines...)
			sort.Slice(src, func(i, j int) bool { return src[i].Number < src[j].Number })
			fns := append([]*Function(nil), f.Functions...)
			sortGroup(fns)
			sort.SliceStable(fns, func(i, j int) bool { return fns[i].StartLine < fns[j].StartLine })
			si := 0
			for _, fn := range fns {
				for ; si < len(src) && src[si].Number < fn.StartLine; si++ {
					jf.Lines = append(jf.Lines, src[si].json(opt))
				}
				for _, l := range fn.Lines {
					jf.Lines = append(jf.Lines, l.json(opt))
				}
			}
			for ; si < len(src); si++ {
				jf.Lines = append(jf.Lines, src[si].json(opt))
			}
		}
		root.Files = append(root.Files, jf)
	}
	return json.NewEncoder(w).Encode(&root)
}

// WriteJSONGz writes r as gcov writes a .gcov.json.gz file.
func (r *Report) WriteJSONGz(w io.Writer, opt JSONOptions) error {
	zw := gzip.NewWriter(w)
	if err := r.WriteJSON(zw, opt); err != nil {
		return err
	}
	return zw.Close()
}

// json returns l as gcov's JSON line.
func (l *Line) json(opt JSONOptions) jsonLine {
	jl := jsonLine{LineNumber: l.Number, FunctionName: l.Function, Count: l.Count,
		UnexecutedBlock: l.Unexecuted || l.Count == 0 && !l.graph, Branches: []jsonBranch{}}
	if opt.Branches {
		for _, b := range l.Branches {
			jl.Branches = append(jl.Branches, jsonBranch{Count: b.Count, Throw: b.Throw, Fallthrough: b.Fallthrough})
		}
	}
	return jl
}
