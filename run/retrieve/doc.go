// Package retrieve is the local, offline search behind the retrieve node:
// it loads a folder of Markdown, text and HTML files, splits them into
// passages with stable byte offsets, and ranks passages for a query by a
// mix of BM25 and a hashed-feature embedding.
//
// Everything is deterministic and self-contained: no model is downloaded,
// no network is used, and the same corpus and query give the same hits and
// the same score bits, so that a sealed run can be re-checked later. The
// embedding is feature hashing (word unigrams and character trigrams into a
// fixed number of dimensions), not a learned model: it adds robustness to
// spelling and morphology ("invoice" ~ "invoices", partial Chinese words)
// that plain BM25 lacks, at no cost in reproducibility.
//
// The scoring formula, the passage rules and the quotation rule are
// documented in docs/retrieve.md.
//
// Where it fits: docs/architecture.md#running.
package retrieve
