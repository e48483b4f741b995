// Package corpus holds the opt-in comparison of perfpt with perf on public
// perf.data recordings made on other machines (its test file is the whole
// package). The recordings are not part of the repository: set
// PERFPT_CORPUS to a folder of them (see TestCorpus).
package corpus
