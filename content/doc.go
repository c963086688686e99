// Package content turns one file into what a language model can use: the
// text of PDF and office documents, photo and audio metadata, archive
// listings, plain text, or at least the file's type and size.
//
// The type is found by sniffing the bytes (github.com/gabriel-vasile/mimetype
// and a look inside zip containers), never from the name, so a renamed
// file is still read for what it is.
//
// Parsing hostile files is risky, so the daemon never parses in its own
// process: Run re-executes the current binary in extract mode (see
// RunChildIfAsked), hands it the already-opened file as standard input, and
// bounds it in time, memory and output. Extract is the in-process parser the
// child runs; tests and fuzzers call it directly.
package content
