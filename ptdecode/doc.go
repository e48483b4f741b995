// Package ptdecode decodes Intel Processor Trace, in layers like libipt:
// packets, queries and events, instructions and blocks.
package ptdecode
